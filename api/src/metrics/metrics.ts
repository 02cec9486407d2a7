// metrics/: what operators scrape: `/metrics` in Prometheus' text format, from prom-client.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

/**
 * Each server's metrics: the process's own (CPU, memory, heap, event-loop lag, GC: prom-client's defaults, collected
 * once per process), the HTTP requests it answered, and the families of what it runs (the API's, the site server's).
 * Nothing is shared between instances: Prometheus scrapes each one and sums or takes the max itself.
 */
export interface Metrics {
  /** Where a server's own families are registered. */
  registry: Registry;
  /** Families written by this module rather than prom-client (the requests'), appended to the scrape. */
  written: (() => string)[];
  /** The whole scrape: the process's families and the server's. */
  scrape(): Promise<string>;
}

let processRegistry: Registry | undefined;
const processFamilies = () => {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // Gauges named like counters, which `promtool check metrics` rejects; `nodejs_active_handles{type}` and its
    // siblings say the same by type.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
};

export function createMetrics(): Metrics {
  const registry = new Registry();
  const process = processFamilies();
  const written: (() => string)[] = [];
  return {
    registry,
    written,
    scrape: async () =>
      [await process.metrics(), await registry.metrics(), ...written.map((family) => family())].join('\n'),
  };
}

/** A registry no one scrapes, for a server whose metrics are off (METRICS=off): its families cost next to nothing. */
export const unscraped = (): Metrics => ({ registry: new Registry(), written: [], scrape: async () => '' });

export const contentType = Registry.PROMETHEUS_CONTENT_TYPE;

export const isLoopback = (address: string) => /^(127\.|::1$|::ffff:127\.)/.test(address);

/** Whether an `Authorization: Bearer` header carries `token`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string | undefined) {
  if (!token || !header?.startsWith('Bearer ')) return false;
  const given = createHash('sha256').update(header.slice(7)).digest();
  return timingSafeEqual(given, createHash('sha256').update(token).digest());
}

/** The headers by which a proxy says it passes a request on for someone else (RFC 7239's, and the two de facto ones). */
const forwardingHeaders = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/**
 * Who may read what a server says of itself beyond "up": a request from this machine that no proxy forwarded (a proxy
 * on this machine would make every visitor look local, whichever of the forwarding headers it sets), or one with the
 * token.
 */
export const isOperator = (request: FastifyRequest, token: string | undefined) =>
  (isLoopback(request.ip) && forwardingHeaders.every((name) => request.headers[name] === undefined)) ||
  bearerMatches(request.headers.authorization, token);

/** `GET /metrics`: the scrape, for this machine or with METRICS_TOKEN; anyone else gets 404, as if there were none. */
export function serveMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined) {
  app.get('/metrics', async (request, reply) => {
    if (!isOperator(request, token)) {
      return reply.code(404).send({ error: 'Not Found', message: 'No resource at /metrics' });
    }
    return reply
      .header('Cache-Control', 'no-store')
      .type(contentType)
      .send(await metrics.scrape());
  });
}

/**
 * A counter counted in a map of its own and handed to prom-client when scraped: a request pays a map lookup, not
 * prom-client's label checks and hashing. `inc(key, labels)`: `key` stands for `labels` (made only the first time).
 */
export function cheapCounter(metrics: Metrics, name: string, help: string, labelNames: string[]) {
  const counts = new Map<string, { labels: Record<string, string>; count: number }>();
  new Counter({
    name,
    help,
    labelNames,
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const { labels, count } of counts.values()) this.inc(labels, count);
    },
  });
  return (key: string, labels: () => Record<string, string>) => {
    let entry = counts.get(key);
    if (!entry) counts.set(key, (entry = { labels: labels(), count: 0 }));
    entry.count++;
    return entry.labels;
  };
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelsText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeLabel(value)}"`)
    .join(',');

/** Upper bounds of the requests' latency buckets, in seconds. */
export const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Every request answered, by route pattern (never the address: a share link's token, an invented path), the remote
 * that owns it, method and status code (`code`, as Prometheus' own exporters name it); health checks and scrapes
 * are left out: `http_requests_total` and the latency histogram
 * `http_request_duration_seconds`. Both are kept here, a map entry per label set with its bucket counts, and written in
 * the text format when scraped: a request costs a map lookup and a few additions. prom-client's own histogram checks
 * and hashes the labels of every observation, which cost 4 µs a page (`pnpm bench:pages`, CPU per page).
 */
export function countRequests(
  app: FastifyInstance,
  metrics: Metrics,
  ownerOf: (route: string | undefined, url: string) => string,
) {
  const known = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
  const probes = new Set(['/healthz', '/metrics', '/api/health', '/api/health/live']);
  type Series = { labels: string; buckets: Float64Array; sum: number; count: number };
  const series = new Map<string, Series>();
  const record = (pattern: string | undefined, request: FastifyRequest, reply: FastifyReply) => {
    const route = pattern ?? 'unmatched';
    const remote = ownerOf(pattern, request.url);
    const method = known.has(request.method) ? request.method : 'other';
    const code = reply.statusCode;
    const key = `${route} ${remote} ${method} ${code}`;
    let entry = series.get(key);
    if (!entry) {
      const labels = labelsText({ route, remote, method, code: String(code) });
      series.set(key, (entry = { labels, buckets: new Float64Array(latencyBuckets.length), sum: 0, count: 0 }));
    }
    const seconds = reply.elapsedTime / 1000;
    entry.sum += seconds;
    entry.count++;
    for (let bucket = 0; bucket < latencyBuckets.length; bucket++) {
      if (seconds <= latencyBuckets[bucket]!) {
        entry.buckets[bucket]!++;
        break;
      }
    }
  };
  // Each route is told its own pattern once, as it is added, rather than each request reading `routeOptions` (a new
  // frozen object at every read: a third of what counting cost); what no route matched is counted by the not-found hook.
  app.addHook('onRoute', (route) => {
    const pattern = route.url;
    // Health checks and scrapes are not visitors' requests: a readiness 503 during a database outage is the answer
    // asked for, not a server error (the database's own gauge says it), and a scrape every second is no traffic.
    if (probes.has(pattern)) return;
    const counted: onResponseHookHandler = (request, reply, done) => {
      record(pattern, request, reply);
      done();
    };
    route.onResponse = [...(route.onResponse === undefined ? [] : [route.onResponse].flat()), counted];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) record(undefined, request, reply);
    done();
  });
  metrics.written.push(() => {
    const counts = [
      '# HELP http_requests_total Requests answered (not health checks nor scrapes), by route pattern, owning remote, method and status code.',
      '# TYPE http_requests_total counter',
    ];
    const latency = [
      '# HELP http_request_duration_seconds Time from a request to its answer, by route pattern, owning remote, method and status code.',
      '# TYPE http_request_duration_seconds histogram',
    ];
    for (const { labels, buckets, sum, count } of series.values()) {
      counts.push(`http_requests_total{${labels}} ${count}`);
      let cumulative = 0;
      latencyBuckets.forEach((bound, bucket) => {
        cumulative += buckets[bucket]!;
        latency.push(`http_request_duration_seconds_bucket{le="${bound}",${labels}} ${cumulative}`);
      });
      latency.push(`http_request_duration_seconds_bucket{le="+Inf",${labels}} ${count}`);
      latency.push(`http_request_duration_seconds_sum{${labels}} ${sum}`);
      latency.push(`http_request_duration_seconds_count{${labels}} ${count}`);
    }
    return `${counts.join('\n')}\n${latency.join('\n')}\n`;
  });
}

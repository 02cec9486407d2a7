// metrics/: what operators scrape: `/metrics` in Prometheus' text format, from prom-client.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * Each server's metrics: the process's own (CPU, memory, heap, event-loop lag, GC: prom-client's defaults, collected
 * once per process), the HTTP requests it answered, and the families of what it runs (the API's, the site server's).
 * Nothing is shared between instances: Prometheus scrapes each one and sums or takes the max itself.
 */
export interface Metrics {
  /** Where a server's own families are registered. */
  registry: Registry;
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
  return {
    registry,
    scrape: async () => `${await process.metrics()}\n${await registry.metrics()}`,
  };
}

/** A registry no one scrapes, for a server whose metrics are off (METRICS=off): its families cost next to nothing. */
export const unscraped = (): Metrics => ({ registry: new Registry(), scrape: async () => '' });

export const contentType = Registry.PROMETHEUS_CONTENT_TYPE;

const isLoopback = (address: string) => /^(127\.|::1$|::ffff:127\.)/.test(address);

/** Whether an `Authorization: Bearer` header carries `token`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string | undefined) {
  if (!token || !header?.startsWith('Bearer ')) return false;
  const given = createHash('sha256').update(header.slice(7)).digest();
  return timingSafeEqual(given, createHash('sha256').update(token).digest());
}

/**
 * Who may read what a server says of itself beyond "up": a request from this machine that no proxy forwarded (a proxy
 * on this machine would make every visitor look local), or one with the token.
 */
export const isOperator = (request: FastifyRequest, token: string | undefined) =>
  (isLoopback(request.ip) && request.headers['x-forwarded-for'] === undefined) ||
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

/** The HTTP status as a bounded label: `2xx` … `5xx`. */
const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/**
 * Every request answered, by route pattern (never the address: a share link's token, an invented path), the remote
 * that owns it, method and status class: a counter and a latency histogram. The counter is kept in a map and handed to
 * prom-client when scraped, so that a request costs one histogram observation (`pnpm bench:pages`).
 */
export function countRequests(
  app: FastifyInstance,
  metrics: Metrics,
  ownerOf: (route: string | undefined, url: string) => string,
) {
  const counts = new Map<string, { labels: Record<string, string>; count: number }>();
  const known = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);
  new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by route pattern, owning remote, method and status class.',
    labelNames: ['route', 'remote', 'method', 'status_class'],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const { labels, count } of counts.values()) this.inc(labels, count);
    },
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request to its answer, by route pattern, owning remote, method and status class.',
    labelNames: ['route', 'remote', 'method', 'status_class'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics.registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const remote = ownerOf(request.routeOptions.url, request.url);
    const method = known.has(request.method) ? request.method : 'other';
    const status = statusClass(reply.statusCode);
    const key = `${route} ${remote} ${method} ${status}`;
    let entry = counts.get(key);
    if (!entry) {
      const labels = { route, remote, method, status_class: status };
      counts.set(key, (entry = { labels, count: 0 }));
    }
    entry.count++;
    latency.observe(entry.labels, reply.elapsedTime / 1000);
    done();
  });
}

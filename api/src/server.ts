import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Fastify, {
  LogController,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { apiPrefix } from '@gift/contracts';
import { apiPlugin } from './api-plugin.ts';
import { countRequests, createMetrics, serveMetrics } from './metrics/metrics.ts';
import type { KnownVersion } from './field-data/routes.ts';
import type { ApiConfig } from './config.ts';
import type { Db } from './db/database.ts';

/**
 * An address as the logs keep it: a share link's token (`/share-location/<token>`, which lets anyone post to that
 * share) and any `token=` in the query (a preview link) are replaced by `[token]`.
 */
export const withoutTokens = (url: string) =>
  // Most addresses hold neither: one quick test spares them both replacements (this runs for every request logged).
  /token|share-location/i.test(url)
    ? url.replace(/^(\/share-location\/)[^/?#]+/i, '$1[token]').replace(/([?&]token=)[^&#]*/gi, '$1[token]')
    : url;

/** Logger settings shared by the API and the site server: a request id on every line, no personal data, no tokens. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.cookie', 'req.headers.authorization', 'body', 'req.body'], remove: true },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: withoutTokens(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
}

/** A request id a client (or the proxy in front) sent, when it is short and plain enough to write into logs. */
export const isPlainRequestId = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value);

/** The client's `X-Request-Id` when it is plain (a proxy's trace id), otherwise a new one. */
export const requestIdOptions = {
  requestIdHeader: false,
  genReqId: (request) => {
    const sent = request.headers['x-request-id'];
    return isPlainRequestId(sent) ? sent : randomUUID();
  },
} satisfies FastifyServerOptions;

/**
 * HTTP settings shared by the API and the site server: a request id on every line, and limits that keep slow
 * or idle clients from holding connections (Fastify sets no request timeout by default, and Node checks
 * timeouts only every 30 s unless told otherwise).
 */
export function httpServerOptions({ requestTimeoutMs }: Pick<ApiConfig, 'requestTimeoutMs'>) {
  return {
    ...requestIdOptions,
    // One line per request, written when it is answered (logEachRequest), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: 5_000,
    http: {
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(requestTimeoutMs / 4))),
    },
  } satisfies FastifyHttpOptions<Server>;
}

/** What balancers and Prometheus ask every few seconds: counted in the metrics, written to the log only at debug. */
const pollingRoutes = new Set(['/healthz', '/api/health', '/api/health/live', '/metrics']);

/**
 * The request log: one line per request once it is answered, with its facts as plain fields (method, address without
 * tokens, client, status, milliseconds) beside the request id. Half the lines of Fastify's own pair; and plain fields
 * cost a third of the nested `req`/`res` objects to write (`pnpm bench:pages`, the `log` layer). Health checks and
 * scrapes at debug: a balancer polling every second would otherwise be most of the log.
 */
export function logEachRequest(app: FastifyInstance) {
  app.addHook('onResponse', (request, reply, done) => {
    const level = pollingRoutes.has(request.routeOptions.url ?? '') ? 'debug' : 'info';
    request.log[level](
      {
        method: request.method,
        url: withoutTokens(request.url),
        ip: request.ip,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
    done();
  });
}

/** Fastify's trustProxy for the configured hops: a count is the first n hops back from this server. */
export function trustedHops(setting: ApiConfig['trustProxy']) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

/** The API on its own, for production deployments that run it apart from the site server. */
export async function createApiServer({
  db,
  config,
  logger,
  knownVersion,
  databaseReady,
}: {
  db: Db;
  config: ApiConfig;
  logger?: FastifyServerOptions['logger'];
  knownVersion?: KnownVersion;
  databaseReady?: () => boolean;
}) {
  const app = Fastify({
    logger: logger ?? false,
    ...httpServerOptions(config),
    trustProxy: trustedHops(config.trustProxy),
  });
  logEachRequest(app);
  const metrics = config.metrics.enabled ? createMetrics() : undefined;
  if (metrics) {
    countRequests(app, metrics, () => 'api');
    serveMetrics(app, metrics, config.metrics.token);
  }
  app.addHook('onSend', async (request, reply) => {
    reply
      .header('x-request-id', request.id)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cross-Origin-Resource-Policy', 'same-origin');
  });
  await app.register(apiPlugin, { prefix: apiPrefix, db, config, knownVersion, databaseReady, metrics });
  return app;
}

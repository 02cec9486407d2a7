import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Fastify, { type FastifyHttpOptions, type FastifyServerOptions } from 'fastify';
import { apiPrefix } from '@gift/contracts';
import { apiPlugin } from './api-plugin.ts';
import type { ApiConfig } from './config.ts';
import type { Db } from './db/database.ts';

/** Logger settings shared by the API and the site server: a request id on every line, no personal data. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.cookie', 'req.headers.authorization', 'body', 'req.body'], remove: true },
  };
}

export const requestIdOptions = {
  requestIdHeader: 'x-request-id',
  genReqId: () => randomUUID(),
} satisfies FastifyServerOptions;

/**
 * HTTP settings shared by the API and the site server: a request id on every line, and limits that keep slow
 * or idle clients from holding connections (Fastify sets no request timeout by default, and Node checks
 * timeouts only every 30 s unless told otherwise).
 */
export function httpServerOptions({ requestTimeoutMs }: Pick<ApiConfig, 'requestTimeoutMs'>) {
  return {
    ...requestIdOptions,
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: 5_000,
    http: {
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(requestTimeoutMs / 4))),
    },
  } satisfies FastifyHttpOptions<Server>;
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
}: {
  db: Db;
  config: ApiConfig;
  logger?: FastifyServerOptions['logger'];
}) {
  const app = Fastify({
    logger: logger ?? false,
    ...httpServerOptions(config),
    trustProxy: trustedHops(config.trustProxy),
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  await app.register(apiPlugin, { prefix: apiPrefix, db, config });
  return app;
}

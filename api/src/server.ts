import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyServerOptions } from 'fastify';
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
  const app = Fastify({ logger: logger ?? false, ...requestIdOptions, trustProxy: process.env.TRUST_PROXY === 'true' });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  await app.register(apiPlugin, { prefix: '/api', db, config });
  return app;
}

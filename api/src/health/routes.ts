import type { FastifyInstance } from 'fastify';
import { isDatabaseReachable, type Db } from '../db/database.ts';

export function healthRoutes(app: FastifyInstance, { db }: { db: Db }) {
  /** Readiness: the service can take requests only while its database answers. */
  app.get('/health', async (_request, reply) => {
    const up = await isDatabaseReachable(db);
    return reply.code(up ? 200 : 503).send({ status: up ? 'ok' : 'unavailable', database: up ? 'up' : 'down' });
  });

  /** Liveness: the process answers. Also the framework's ceiling in `pnpm bench`. */
  app.get('/health/live', async () => ({ status: 'ok' }));
}

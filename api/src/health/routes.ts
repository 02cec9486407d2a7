import type { FastifyInstance } from 'fastify';
import { isDatabaseReachable, type Db } from '../db/database.ts';
import { recentDatabaseFault } from '../db/faults.ts';

/**
 * What the health checks say of the database: reachable or not, and a fault requests met lately that reaching it now
 * does not end (a full disk, a lock).
 */
export async function databaseHealth(db: Db, databaseReady: () => boolean = () => true) {
  if (!(await isDatabaseReachable(db))) return { up: false, database: 'down' } as const;
  if (!databaseReady()) return { up: false, database: 'not migrated yet' } as const;
  const fault = recentDatabaseFault(30_000, true);
  return fault ? ({ up: true, database: 'degraded', fault } as const) : ({ up: true, database: 'up' } as const);
}

export function healthRoutes(app: FastifyInstance, { db, databaseReady }: { db: Db; databaseReady: () => boolean }) {
  /**
   * Readiness: the service can take requests only while its database answers (503 otherwise, within about 1 s, on a
   * connection of its own). Reachable but failing requests lately (SQLite's disk full, a lock timeout): degraded,
   * with the fault.
   */
  app.get('/health', async (_request, reply) => {
    const { up, ...health } = await databaseHealth(db, databaseReady);
    const status = !up ? 'unavailable' : health.database === 'up' ? 'ok' : 'degraded';
    return reply.code(up ? 200 : 503).send({ status, ...health });
  });

  /** Liveness: the process answers. Also the framework's ceiling in `pnpm bench`. */
  app.get('/health/live', async () => ({ status: 'ok' }));
}

import type { FastifyInstance } from 'fastify';
import { isOperator } from 'api';
import type { RemotesManifest } from '@gift/federation';
import { liveVersionsOf } from '../ledger/versions.ts';
import type { ReleasesSource } from '../remotes/builds.ts';

/**
 * `/healthz`, for a balancer: 200 while pages are composed from a good manifest (the file's own, or the last good one
 * while the file is unusable: "degraded"); 503 when no good manifest was ever read; following a database, how long
 * ago it last heard from it; the API's database up or not (down: "degraded", pages are still served). Which versions
 * are served and why it is degraded are for operators: on this machine and not forwarded by a proxy, or with the
 * HEALTH_TOKEN (a release's watch window, and raw error text, are nobody else's business).
 */

export function serveHealth(
  app: FastifyInstance,
  {
    readManifest,
    status,
    healthToken,
    database,
  }: {
    readManifest: () => Promise<RemotesManifest>;
    status: ReleasesSource['status'];
    healthToken?: string;
    /** The API's database, when the server mounts the API: pages go on without it, its requests do not. */
    database?: { name: string; health: () => Promise<{ database: string; fault?: string }> };
  },
) {
  app.get('/healthz', async (request, reply) => {
    const [served, data] = await Promise.all([readManifest(), database?.health()]);
    const { ok, problem, hasManifest, live, lastHeardMs, ...more } = status();
    const summary = {
      status: ok && (!data || data.database === 'up') ? 'ok' : 'degraded',
      ...(data ? { database: data.database } : {}),
      ...(lastHeardMs === undefined ? {} : { lastHeardMs }),
    };
    const detailed = isOperator(request, healthToken);
    return reply
      .code(hasManifest ? 200 : 503)
      .header('Cache-Control', 'no-store')
      .send(
        detailed
          ? {
              ...summary,
              ...(problem ? { manifest: problem } : {}),
              ...(data ? { databaseName: database!.name, ...(data.fault ? { databaseFault: data.fault } : {}) } : {}),
              live: live ?? liveVersionsOf(served),
              ...more,
            }
          : summary,
      );
  });
}

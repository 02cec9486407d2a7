import type { FastifyInstance } from 'fastify';
import type { Db } from './db/database.ts';

/**
 * On SIGINT or SIGTERM the server stops taking connections, finishes the requests already in flight, closes the
 * database and exits. A second signal while it does so changes nothing.
 */
export function closeOnSignal(app: FastifyInstance, db: Db) {
  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (closing) return;
      closing = true;
      app.log.info(`${signal} received: finishing in-flight requests`);
      void app
        .close()
        .then(() => db.destroy())
        .then(() => process.exit(0));
    });
  }
}

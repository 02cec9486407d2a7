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

/**
 * The settings `read` gives, or, when they are wrong (a missing secret, a value that is not a number), the reason on
 * one line and exit code 78 (EX_CONFIG): the systemd units do not restart a process that cannot start as set
 * (`RestartPreventExitStatus=78`), and no stack hides the reason.
 */
export function settingsOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    console.error(`Not started: ${(error as Error).message}`);
    process.exit(78);
  }
}

import type { FastifyInstance } from 'fastify';
import type { Db } from './db/database.ts';
import { SettingsError } from './settings-reader.ts';

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
 * The settings `read` gives, or, when some are wrong or missing (a secret, a port, an address, a folder), all of them
 * named on one line and exit code 78 (EX_CONFIG): the systemd units do not restart a process that cannot start as set
 * (`RestartPreventExitStatus=78`), and no stack hides the reason.
 */
export function settingsOrExit<T>(read: () => T, envFile?: string): T {
  try {
    return read();
  } catch (error) {
    const problems = error instanceof SettingsError ? error.problems : [(error as Error).message];
    const count = problems.length === 1 ? 'a setting' : `${problems.length} settings`;
    const where = `${envFile ? `${envFile} under systemd; ` : ''}docs/configuration.md lists each`;
    console.error(`Not started: ${count} to fix in the environment it starts with (${where}): ${problems.join(' ')}`);
    process.exit(78);
  }
}

import { readConfig } from './config.ts';
import { openMigratedDatabase } from './db/database.ts';
import { createApiServer, loggerOptions } from './server.ts';

const config = readConfig();
const db = await openMigratedDatabase(config);
const app = await createApiServer({ db, config, logger: loggerOptions(config.logLevel) });

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received: finishing in-flight requests`);
    // close() stops accepting connections and waits for the requests already in flight.
    void app
      .close()
      .then(() => db.destroy())
      .then(() => process.exit(0));
  });
}

await app.listen({ port: Number(process.env.API_PORT ?? 3001), host: process.env.HOST ?? '127.0.0.1' });

import { readConfig } from './config.ts';
import { openDatabaseWhenReachable } from './db/database.ts';
import { createApiServer, loggerOptions } from './server.ts';
import { closeOnSignal, settingsOrExit } from './shutdown.ts';

const config = settingsOrExit(() => readConfig(process.env, undefined, { server: true }), '/etc/giftwell/api.env');
// Listening before the database is reached: requests that need it answer 503 until then (a balancer keeps the
// instance out while /api/health says so), and the database is tried again with backoff instead of the process
// ending and a supervisor starting it in a loop.
const { db, migrate, ready } = await openDatabaseWhenReachable(config);
const app = await createApiServer({ db, config, logger: loggerOptions(config.logLevel), databaseReady: ready });

closeOnSignal(app, db);

await app.listen({ port: config.apiPort, host: process.env.HOST ?? '127.0.0.1' });
await migrate(app.log);

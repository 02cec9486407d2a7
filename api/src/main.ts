import { readConfig } from './config.ts';
import { openMigratedDatabase } from './db/database.ts';
import { createApiServer, loggerOptions } from './server.ts';
import { closeOnSignal } from './shutdown.ts';

const config = readConfig();
const db = await openMigratedDatabase(config);
const app = await createApiServer({ db, config, logger: loggerOptions(config.logLevel) });

closeOnSignal(app, db);

await app.listen({ port: Number(process.env.API_PORT ?? 3001), host: process.env.HOST ?? '127.0.0.1' });

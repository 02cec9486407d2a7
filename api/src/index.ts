export { apiPlugin } from './api-plugin.ts';
export { readConfig, type ApiConfig } from './config.ts';
export { databaseName, openMigratedDatabase, type Db } from './db/database.ts';
export { httpServerOptions, logEachRequest, loggerOptions, trustedHops } from './server.ts';
export { formOutcomeCookies, type FormOutcomeCookies } from './http/form-posts.ts';
export { closeOnSignal } from './shutdown.ts';
export { fieldData, type VersionFigures } from './field-data/repository.ts';
export { queueRollbackWebhook } from './webhooks/queue.ts';
export { printable } from './cli/printable.ts';

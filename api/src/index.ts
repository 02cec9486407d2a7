export { apiPlugin } from './api-plugin.ts';
export { readConfig, type ApiConfig } from './config.ts';
export { databaseName, openMigratedDatabase, type Db } from './db/database.ts';
export { httpServerOptions, logEachRequest, loggerOptions, trustedHops } from './server.ts';
export { formOutcomeCookies, type FormOutcomeCookies } from './http/form-posts.ts';
export { closeOnSignal } from './shutdown.ts';
export { fieldData, fieldDataRetention, type VersionFigures } from './field-data/repository.ts';
export { shellVersion, type KnownVersion } from './field-data/routes.ts';
export {
  countsLine,
  defaultRule,
  judgeRelease,
  judgeRollout,
  waitingFor,
  type Decision,
  type DecisionRule,
} from './field-data/decision.ts';
export { readJudgeSettings } from './config.ts';
export { ticketCookie, viewTickets, type ViewTickets } from './field-data/tickets.ts';
export { queueRollbackWebhook, queueRolloutWebhook } from './webhooks/queue.ts';
export { printable } from './cli/printable.ts';

// The API service as the site server mounts it; what the commands use alone is api/commands, re-exported here.
export * from './commands.ts';
export { apiPlugin } from './api-plugin.ts';
export { httpServerOptions, logEachRequest, loggerOptions, trustedHops } from './server.ts';
export { formOutcomeCookies, type FormOutcomeCookies } from './http/form-posts.ts';
export { closeOnSignal, settingsOrExit } from './shutdown.ts';
export { databaseHealth } from './health/routes.ts';
export { openDatabaseWhenReachable } from './db/database.ts';
export { shellVersion } from './field-data/routes.ts';
export { ticketCookie, viewTickets, type ViewTickets } from './field-data/tickets.ts';
export {
  bearerMatches,
  cheapCounter,
  countRequests,
  createMetrics,
  isLoopback,
  isOperator,
  serveMetrics,
  type Metrics,
} from './metrics/metrics.ts';

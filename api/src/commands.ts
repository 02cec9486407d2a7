/**
 * `api/commands`: what the release commands and the site server's watches use of the API, without its HTTP server
 * (Fastify, the mailer, React's email templates): `pnpm releases` starts in a fraction of the time `api` takes to load.
 */
export { readConfig, readJudgeSettings, type ApiConfig } from './config.ts';
export { databaseName, openMigratedDatabase, type Db } from './db/database.ts';
export { faultReason, isDatabaseAway, outageLog } from './db/faults.ts';
export { fieldData, fieldDataRetention, type VersionFigures } from './field-data/repository.ts';
export type { KnownVersion } from './field-data/routes.ts';
export {
  countsLine,
  defaultRule,
  judgeRelease,
  judgeRollout,
  waitingFor,
  type Decision,
  type DecisionRule,
} from './field-data/decision.ts';
export {
  experimentDays,
  experimentSampleRatio,
  experimentTotals,
  judgeExperimentOver,
  remoteGoals,
  type ExperimentUnderWay,
} from './field-data/experiment-days.ts';
export { type ExperimentVerdict } from './judge/experiment.ts';
export {
  defaultSampleRatioSettings,
  sampleRatio,
  type NetworkArms,
  type SampleRatio,
  type SampleRatioSettings,
} from './judge/sample-ratio.ts';
export { seeded } from './judge/simulate.ts';
export { queueRollbackWebhook, queueRolloutWebhook } from './webhooks/queue.ts';
export { printable } from './cli/printable.ts';

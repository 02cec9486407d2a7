// repository: field data as the API's routes, the release watch and the teams' commands use it, composed of its
// concerns: storage (what a report leaves), counting (what a decision reads), figures (what teams read), roll-up.
import type { Db } from '../db/database.ts';
import { counting } from './counting.ts';
import { figureReads } from './figures.ts';
import { rollUps } from './roll-up.ts';
import { reportStorage } from './storage.ts';

export { fieldDataRetention, groupCommit, type StoredReport } from './storage.ts';
export { maxErrorMessages, otherErrors, percentile, type FieldFigures, type HourFigures } from './figures.ts';
export type { VersionFigures } from './counting.ts';

/** Field data: reports as they arrive, their hourly figures, and what the teams and the release watch read. */
export function fieldData(db: Db, now: () => Date = () => new Date()) {
  return { ...reportStorage(db, now), ...counting(db, now), ...figureReads(db, now), ...rollUps(db, now) };
}

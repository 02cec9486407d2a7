import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { isRemoteName, type RemoteName } from '@gift/federation';
import { isVersionName } from './versions.ts';

/**
 * A staged rollout of one remote: a new version (the canary) serves a share of visitors, stage by stage (5% -> 25% ->
 * 100%), while everyone else keeps the version live when it started (the current one). Visitors are split by their
 * place in the test (a hash of their id and the test's, in [0, 100); see rollouts/cohorts.ts): below the share, the
 * canary. At the last stage (100%) the canary goes live for all.
 */
export interface Rollout {
  remote: RemoteName;
  /** The version rolled out. */
  version: string;
  /** Its entry URL, as the manifest would name it. */
  entry: string;
  /** The version live for everyone else, which the canary is compared with. */
  current: string;
  /** The shares of visitors, in percent, rising, the last one 100. */
  stages: number[];
  /** Which of `stages` is under way. */
  stage: number;
  /** How long each stage lasts before it is judged (paused time not counted). */
  stageMinutes: number;
  /** When the stage began: the figures it is judged by count from here. */
  stageSince: string;
  /** While paused, since when. */
  pausedAt?: string;
  /** How long the stage was paused before, in milliseconds. */
  pausedMs: number;
  startedAt: string;
  startedBy: string;
  /**
   * Set when the rollout is an experiment (`pnpm experiment`): its one stage serves the new version to a share of
   * visitors for `days`, judged on `goal`; the watch never advances it (a person ships or stops it) and still takes it
   * off when the release judge finds it worse.
   */
  experiment?: Experiment;
}

export interface Experiment {
  /** The goal counted as a conversion, one of the remote's pages' (`remoteGoals`). */
  goal: string;
  /** How many days it is planned for: the judge's last look. */
  days: number;
}

/** The longest experiment: the field data's daily figures are kept 90 days. */
export const maxExperimentDays = 90;

/** What a page server needs of a rollout: who gets the canary, and where its entry is. */
export interface Split {
  /** The test's own id (its remote, version and start): a visitor's arm is a hash of its id and this. */
  id: string;
  version: string;
  entry: string;
  share: number;
  /** Which of the rollout's stages it is at, from 1. */
  stage: number;
}

/** The rollouts under way, by remote, as every site server splits visitors by them. */
export type Splits = Partial<Record<RemoteName, Split>>;

export const shareOf = (rollout: Rollout) => rollout.stages[rollout.stage]!;

/** A rollout's or experiment's own id: a new rollout of the same version is a new test, drawn afresh. */
export const testIdOf = (rollout: Pick<Rollout, 'remote' | 'version' | 'startedAt'>) =>
  `${rollout.remote}/${rollout.version}/${rollout.startedAt}`;

export const splitOf = (rollout: Rollout): Split => ({
  id: testIdOf(rollout),
  version: rollout.version,
  entry: rollout.entry,
  share: shareOf(rollout),
  stage: rollout.stage + 1,
});

/** Whether a visitor's place in a test (in [0, 100)) is in the canary at `share` percent: a larger share only adds. */
export const inCanary = (place: number, share: number) => place < share;

/** Default time of a stage (ROLLOUT_STAGE_MINUTES or `--stage-minutes`). */
export const defaultStageMinutes = 10;

/**
 * `--stages 5,25,100`: whole percents, rising, ending at 100; at least one stage before everyone. Undefined with the
 * reason when the text is not that.
 */
export function parseStages(text: string): { stages: number[] } | { problem: string } {
  const parts = text.split(',').map((part) => part.trim());
  if (!parts.every((part) => /^\d{1,3}$/.test(part))) {
    return { problem: `--stages takes whole percents separated by commas (5,25,100), not "${text}".` };
  }
  const stages = parts.map(Number);
  if (stages.some((share) => share < 1 || share > 100)) {
    return { problem: `--stages: each share is between 1 and 100 percent (${text}).` };
  }
  if (stages.some((share, index) => index > 0 && share <= stages[index - 1]!)) {
    return { problem: `--stages: each stage serves more visitors than the one before (${text}).` };
  }
  if (stages.at(-1) !== 100) return { problem: `--stages ends at 100, when everyone has the new version (${text}).` };
  if (stages.length < 2)
    return { problem: '--stages needs a stage before 100 (5,25,100); a plain promote is 100 at once.' };
  return { stages };
}

/** `--stage-minutes`: a number of minutes above 0 (a fraction shortens a rehearsal), at most a week. */
export function parseStageMinutes(text: string): { minutes: number } | { problem: string } {
  const minutes = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(minutes > 0) || minutes > 7 * 24 * 60) {
    return { problem: `--stage-minutes takes minutes above 0 and at most a week (10, or 0.5), not "${text}".` };
  }
  return { minutes };
}

const ms = (iso: string) => new Date(iso).getTime();

/** How long the stage has run, paused time left out. */
export function stageElapsedMs(rollout: Rollout, now: Date): number {
  const pausedNow = rollout.pausedAt ? now.getTime() - ms(rollout.pausedAt) : 0;
  return Math.max(0, now.getTime() - ms(rollout.stageSince) - rollout.pausedMs - pausedNow);
}

/** Whether the stage has run its time and is to be judged (never while paused). */
export const stageIsDue = (rollout: Rollout, now: Date) =>
  !rollout.pausedAt && stageElapsedMs(rollout, now) >= rollout.stageMinutes * 60_000;

export function paused(rollout: Rollout, now: Date): Rollout {
  return rollout.pausedAt ? rollout : { ...rollout, pausedAt: now.toISOString() };
}

export function resumed(rollout: Rollout, now: Date): Rollout {
  if (!rollout.pausedAt) return rollout;
  const { pausedAt, ...running } = rollout;
  return { ...running, pausedMs: rollout.pausedMs + (now.getTime() - ms(pausedAt)) };
}

/** The next stage, from now; undefined when it is the last (100%): then the canary goes live instead. */
export function advanced(rollout: Rollout, now: Date): Rollout | undefined {
  if (rollout.stage + 2 >= rollout.stages.length) return undefined;
  const next: Rollout = { ...rollout, stage: rollout.stage + 1, stageSince: now.toISOString(), pausedMs: 0 };
  delete next.pausedAt;
  return next;
}

/** What a rollout's stage is judged over: its canary and current version since the stage began. */
export const judgedOver = (rollout: Rollout) => ({
  remote: rollout.remote,
  version: rollout.version,
  current: rollout.current,
  since: new Date(rollout.stageSince),
  share: shareOf(rollout),
});

/** An experiment as its judge reads it: its arms since it started, its goal, days and share. */
export const experimentOf = (rollout: Rollout) => ({
  ...judgedOver(rollout),
  ...rollout.experiment!,
  since: new Date(rollout.startedAt),
});

/** Where the rollouts of a site without PostgreSQL are kept: beside its manifest, as its records are. */
export const rolloutsFile = (manifestFile: string) =>
  join(dirname(manifestFile), `${basename(manifestFile, '.json')}.rollouts.json`);

const isShare = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 100;

const isTime = (value: unknown) => typeof value === 'string' && Number.isFinite(Date.parse(value));

/**
 * Why a value read from a file or a row is not a rollout, or undefined when it is one: every field of its type, its
 * times real times, its stages rising to 100. An entry that is not one is passed over for its remote alone (the
 * others' rollouts go on), rather than stopping every look of the watch at its first use.
 */
export function rolloutProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const rollout = value as Rollout;
  if (typeof rollout.remote !== 'string' || !isRemoteName(rollout.remote)) return 'remote is not a remote of the site';
  if (typeof rollout.version !== 'string' || !isVersionName(rollout.version)) return 'version is not a version name';
  if (typeof rollout.current !== 'string' || !rollout.current) return 'current is not a version';
  if (typeof rollout.entry !== 'string') return 'entry is not an address';
  if (!Array.isArray(rollout.stages) || !rollout.stages.every(isShare)) return 'stages are not shares of 1-100%';
  if (
    rollout.stages.some((share, index) => index > 0 && share <= rollout.stages[index - 1]!) ||
    rollout.stages.at(-1) !== 100
  ) {
    return 'stages do not rise to 100%';
  }
  if (!Number.isInteger(rollout.stage) || rollout.stage < 0 || rollout.stage >= rollout.stages.length) {
    return 'stage is not one of its stages';
  }
  if (typeof rollout.stageMinutes !== 'number' || !(rollout.stageMinutes > 0)) return 'stageMinutes is not above 0';
  if (!isTime(rollout.stageSince)) return 'stageSince is not a time';
  if (rollout.pausedAt !== undefined && !isTime(rollout.pausedAt)) return 'pausedAt is not a time';
  if (typeof rollout.pausedMs !== 'number' || !(rollout.pausedMs >= 0)) return 'pausedMs is not a duration';
  if (rollout.startedAt !== undefined && !isTime(rollout.startedAt)) return 'startedAt is not a time';
  if (rollout.experiment !== undefined) return experimentProblem(rollout);
  return undefined;
}

function experimentProblem({ experiment, stages }: Rollout): string | undefined {
  if (typeof experiment !== 'object' || experiment === null) return 'experiment is not an object';
  if (typeof experiment.goal !== 'string' || !/^[a-z-]{1,40}$/.test(experiment.goal))
    return 'experiment.goal is not a goal';
  const { days } = experiment;
  if (!Number.isInteger(days) || days < 1 || days > maxExperimentDays) return 'experiment.days is not 1-90 days';
  if (stages.length !== 2) return 'an experiment has one stage before 100%';
  return undefined;
}

/** A rollout as read from a file or a row: undefined for anything that is not one (`rolloutProblem` says why). */
export function asRollout(value: unknown): Rollout | undefined {
  return rolloutProblem(value) === undefined ? (value as Rollout) : undefined;
}

/** The rollouts in the file, by remote; a missing file is none, an entry that is not a rollout is passed over. */
export function readRolloutsFile(file: string): Partial<Record<RemoteName, Rollout>> {
  return existsSync(file) ? rolloutsIn(readFileSync(file, 'utf8')) : {};
}

/**
 * Why each entry of `entries` (by remote) that is not a rollout of its remote is not: what the watch logs and
 * `pnpm rollout <remote> status` says, while the entry is passed over.
 */
export function rolloutProblems(entries: [remote: string, value: unknown][]): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [remote, value] of entries) {
    const problem =
      rolloutProblem(value) ?? ((value as Rollout).remote === remote ? undefined : `remote is not ${remote}`);
    if (problem) problems[remote] = problem;
  }
  return problems;
}

/** A rollouts file's entries by remote, as they are ({} for a missing or unreadable file). */
export function rolloutEntriesOf(file: string): [string, unknown][] {
  if (!existsSync(file)) return [];
  try {
    const data: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof data === 'object' && data !== null ? Object.entries(data) : [];
  } catch {
    return [];
  }
}

/** The rollouts in a rollouts file's text; anything that is not one is passed over. */
export function rolloutsIn(text: string): Partial<Record<RemoteName, Rollout>> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof data !== 'object' || data === null) return {};
  return Object.fromEntries(
    Object.entries(data).flatMap(([remote, value]) => {
      const rollout = asRollout(value);
      return rollout && rollout.remote === remote ? [[remote, rollout]] : [];
    }),
  );
}

/** Changes one remote's rollout in the file under a lock, replacing the file in one rename (as the manifest is). */
export async function writeRollout(file: string, remote: RemoteName, rollout: Rollout | undefined) {
  const unlock = await lockfile.lock(file, {
    realpath: false,
    stale: 10_000,
    retries: { retries: 50, minTimeout: 20, maxTimeout: 200 },
  });
  try {
    // Every other remote's entry as it is, valid or not: one remote's step never rewrites another's.
    const all: Record<string, unknown> = Object.fromEntries(rolloutEntriesOf(file));
    if (rollout) all[remote] = rollout;
    else delete all[remote];
    await writeFileAtomic(file, `${JSON.stringify(all, null, 2)}\n`, { fsync: true });
  } finally {
    await unlock();
  }
}

import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { RemoteName } from '@gift/federation';

/**
 * What happened to each published version, one JSON line per event, beside the manifest (never in REMOTES_DIR, which
 * a CDN publishes): who made a candidate, the checks' verdict, a forced promote and its reason, each switch, and a
 * rollback by the release watch with its reason.
 */
export type ReleaseEvent =
  | { event: 'published' }
  | { event: 'checks-started' }
  | { event: 'passed'; seconds: number }
  | { event: 'refused'; why: string }
  | { event: 'forced'; reason: string }
  | { event: 'live'; how: 'promote' | 'rollback' | 'rollout' }
  /** The release watch took this version off by itself: what the field data showed. */
  | { event: 'rolled-back'; why: string }
  /** A staged rollout of this version began, against `current`. */
  | {
      event: 'rollout-started';
      current: string;
      stages: number[];
      stageMinutes: number;
      /** An experiment (`pnpm experiment start`): the goal it counts and the days planned. */
      experiment?: { goal: string; days: number };
    }
  /** It went on to serve `share` percent of visitors: by the watch's decision (`why`), or by an operator. */
  | { event: 'rollout-advanced'; share: number; why: string; by?: 'watch' | 'operator' }
  | { event: 'rollout-paused'; share: number }
  | { event: 'rollout-resumed'; share: number }
  /** It was taken off at `share` percent: by the watch (`by: 'watch'`, with the figures) or by an operator. */
  | { event: 'rollout-aborted'; share: number; why: string; by: 'watch' | 'operator' };

export type ReleaseRecord = ReleaseEvent & { remote: RemoteName; version: string; who: string; at: string };

export const recordsFile = (manifestFile: string) =>
  join(dirname(manifestFile), `${basename(manifestFile, '.json')}.releases.jsonl`);

/** The operating system's user who ran the command. */
export const operator = () => {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
};

/** Appends one event; one short line in one write, so two commands at once never interleave. */
export function record(
  manifestFile: string,
  remote: RemoteName,
  version: string,
  event: ReleaseEvent,
  now = new Date(),
) {
  const line: ReleaseRecord = { remote, version, ...event, who: operator(), at: now.toISOString() };
  appendFileSync(recordsFile(manifestFile), `${JSON.stringify(line)}\n`, { mode: 0o600 });
}

/** Every event of a remote, oldest first; a line that is not a record (a torn write, an edit) is passed over. */
export function recordsOf(manifestFile: string, remote: RemoteName): ReleaseRecord[] {
  const file = recordsFile(manifestFile);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as ReleaseRecord;
        return parsed.remote === remote ? [parsed] : [];
      } catch {
        return [];
      }
    });
}

const when = (record: ReleaseRecord) => `${record.who}, ${record.at.slice(0, 16).replace('T', ' ')} UTC`;

const at = (record: ReleaseRecord) => `${record.at.slice(0, 16).replace('T', ' ')} UTC`;

/**
 * A version's story in words, oldest first: every check or force (each with its own time), every rollback and every
 * abort with its reason and time, whatever happened to the version after; or that it was never checked. Checks that
 * began and never ended are "under way" while `underWay` (the remote's release lock is held), "interrupted" otherwise.
 */
export function historyOf(
  records: ReleaseRecord[],
  version: string,
  underWay = false,
  { stages = true }: { stages?: boolean } = {},
): string[] {
  const mine = records.filter((record) => record.version === version);
  const story = mine.flatMap((record) => {
    if (stages) {
      const stage = stageLine(record, mine);
      if (stage) return [stage];
    }
    switch (record.event) {
      case 'passed':
        return [`passed (checks ${record.seconds.toFixed(1)} s; ${when(record)})`];
      case 'refused':
        return [`refused: ${record.why} (${when(record)})`];
      case 'forced':
        return [`forced: ${record.reason} (${when(record)})`];
      case 'rolled-back':
        return [`rolled back by the release watch: ${record.why} (${at(record)})`];
      case 'rollout-aborted': {
        const by = record.by === 'watch' ? 'the release watch' : record.who;
        const started = mine.findLast((earlier) => earlier.event === 'rollout-started' && earlier.at <= record.at);
        const experiment = started?.event === 'rollout-started' && started.experiment;
        return [
          experiment
            ? `experiment on ${experiment.goal} ended at ${record.share}% by ${by}: ${record.why} (${at(record)})`
            : `rollout aborted at ${record.share}% by ${by}: ${record.why} (${at(record)})`,
        ];
      }
      default:
        return [];
    }
  });
  const lastStart = mine.findLastIndex((record) => record.event === 'checks-started');
  const unfinished =
    lastStart >= 0 && !mine.slice(lastStart).some((record) => ['passed', 'refused'].includes(record.event));
  if (unfinished) {
    const started = mine[lastStart]!;
    story.push(
      underWay
        ? `checks under way (began ${when(started)})`
        : `interrupted: its checks began (${when(started)}) and never ended; release or promote it again`,
    );
  }
  if (story.length) return story;
  const published = mine.find((record) => record.event === 'published');
  return [published ? `candidate, not checked yet (${when(published)})` : 'no record (published before checks)'];
}

/**
 * A rollout's or an experiment's steps, each with its time: its start (its stages, or its goal and days), each stage
 * reached and by whom (the watch, with the figures it went on), a pause or a resume, and its end by going live.
 */
function stageLine(record: ReleaseRecord, mine: ReleaseRecord[]): string | undefined {
  switch (record.event) {
    case 'rollout-started':
      return record.experiment
        ? `experiment started on ${record.experiment.goal} for ${record.experiment.days} days at ${record.stages[0]}% of visitors, against ${record.current} (${when(record)})`
        : `rollout started: ${record.stages.join('%, ')}% of visitors, ${record.stageMinutes} min a stage at least, against ${record.current} (${when(record)})`;
    case 'rollout-advanced':
      return `advanced to ${record.share}% by ${record.by === 'watch' ? 'the release watch' : record.who}: ${record.why} (${at(record)})`;
    case 'rollout-paused':
      return `paused at ${record.share}% (${when(record)})`;
    case 'rollout-resumed':
      return `resumed at ${record.share}% (${when(record)})`;
    case 'live':
      // A rollout's end: its last stage reached, the version is live for everyone.
      return record.how === 'rollout' && mine.some((earlier) => earlier.event === 'rollout-started')
        ? `live for everyone: its rollout completed (${at(record)})`
        : undefined;
    default:
      return undefined;
  }
}

/** A version's verdicts on one line, as a refusal quotes it (its rollout's stages are not verdicts). */
export const verdictOf = (records: ReleaseRecord[], version: string) =>
  historyOf(records, version, false, { stages: false }).join('; ');

/**
 * Whether a version may go live again: its latest verdict is a pass or a forced promote (or it has no verdict but was
 * live, as versions published before the checks were), and the release watch has not taken it off since. A version
 * refused by its checks, never checked nor live, or rolled back for its field data may not.
 */
export function mayGoLiveAgain(records: ReleaseRecord[], version: string): boolean {
  const mine = records.filter((record) => record.version === version);
  const verdict = mine.findLast((record) => ['passed', 'refused', 'forced'].includes(record.event));
  if (verdict?.event === 'refused') return false;
  if (!verdict && !mine.some((record) => record.event === 'live')) return false;
  // Taken off by the watch, after a promote or during a rollout, for what its visitors met.
  const rolledBack = mine.findLast(
    (record) => record.event === 'rolled-back' || (record.event === 'rollout-aborted' && record.by === 'watch'),
  );
  return !rolledBack || (verdict !== undefined && rolledBack.at < verdict.at);
}

/**
 * The version a rollback goes back to: the one that was live before `live`, by the ledger's switches (the order they
 * happened in, not the versions' names), passing over any that may not go live again. Undefined when there is none.
 */
export function versionLiveBefore(records: ReleaseRecord[], live: string | undefined): string | undefined {
  const switches = records.filter((record) => record.event === 'live').map((record) => record.version);
  const since = live === undefined ? switches.length : switches.lastIndexOf(live);
  return switches
    .slice(0, Math.max(since, 0))
    .reverse()
    .find((version) => version !== live && mayGoLiveAgain(records, version));
}

/** Every switch of a remote, newest first: when, to which version, by a promote or a rollback, and who made it. */
export function switchesOf(records: ReleaseRecord[]) {
  return records
    .filter((record): record is Extract<ReleaseRecord, { event: 'live' }> => record.event === 'live')
    .reverse()
    .map(({ version, how, who, at }) => ({ version, how, who, at }));
}

/**
 * The release under watch in a remote's records: its last switch, when that was a promote within the watch window
 * that the watch has not rolled back, with the version live before it. Undefined otherwise (a rollback was the last
 * switch, the window has passed, or no version came before).
 */
export function watchedRelease(records: ReleaseRecord[], now: Date, minutes: number) {
  const switches = records.filter((record) => record.event === 'live');
  const last = switches.at(-1);
  // A rollout that reached everyone is watched as a promote is.
  if (last?.event !== 'live' || last.how === 'rollback') return undefined;
  const since = new Date(last.at);
  if (now.getTime() - since.getTime() > minutes * 60_000) return undefined;
  const previous = versionLiveBefore(records, last.version);
  if (!previous) return undefined;
  return { version: last.version, previous, since };
}

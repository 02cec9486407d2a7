// watch/: the release watch: a promoted version that made things worse in the field is rolled back, at the ledger.
import type { FastifyBaseLogger } from 'fastify';
import { fieldData, queueRollbackWebhook, type Db, type VersionFigures } from 'api';
import { remoteNames, remotes } from '@gift/federation';
import { ledgerOf, watchRollback, type ReleaseSettings } from '../ledger/switches.ts';
import { versionLiveBefore, type ReleaseRecord } from '../ledger/records.ts';

/**
 * The release watch: for RELEASE_WATCH_MINUTES after a promote, the field data of the new version is compared with the
 * version before it on the same routes, and a version that made things worse is rolled back by itself.
 */

/** Views of the new version before it is judged at all. */
export const minViews = 50;
/** How far back the previous version's figures are read (the raw reports' retention). */
const previousWindowMs = 48 * 3_600_000;

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

/**
 * Why the new version should go, or undefined: with at least 50 views, an error rate above 1% and more than twice the
 * previous version's (none counts as 0), or a p75 INP more than 50% worse than the previous version's.
 */
export function rollbackReason(next: VersionFigures, previous: VersionFigures): string | undefined {
  if (next.views < minViews) return undefined;
  const rate = next.errors / next.views;
  const before = previous.views ? previous.errors / previous.views : 0;
  if (rate > 0.01 && rate > 2 * before) {
    return (
      `error rate ${percent(rate)} (${next.errors} errors in ${next.views} views) against ` +
      `${percent(before)} (${previous.errors} in ${previous.views}) before`
    );
  }
  if (next.inpP75 !== undefined && previous.inpP75 !== undefined && next.inpP75 > 1.5 * previous.inpP75) {
    return `p75 INP ${Math.round(next.inpP75)} ms against ${Math.round(previous.inpP75)} ms before (${next.views} views)`;
  }
  return undefined;
}

/**
 * The release under watch in a remote's records: its last switch, when that was a promote within the watch window
 * that the watch has not rolled back, with the version live before it. Undefined otherwise (a rollback was the last
 * switch, the window has passed, or no version came before).
 */
export function watchedRelease(records: ReleaseRecord[], now: Date, minutes: number) {
  const switches = records.filter((record) => record.event === 'live');
  const last = switches.at(-1);
  if (last?.event !== 'live' || last.how !== 'promote') return undefined;
  const since = new Date(last.at);
  if (now.getTime() - since.getTime() > minutes * 60_000) return undefined;
  const previous = versionLiveBefore(records, last.version);
  if (!previous) return undefined;
  return { version: last.version, previous, since };
}

export interface ReleaseWatchOptions {
  settings: ReleaseSettings;
  db: Db;
  log: FastifyBaseLogger;
  /** RELEASE_WATCH_MINUTES: how long after a promote a version is watched. */
  minutes: number;
  /** How often the field data is read. */
  intervalMs?: number;
  /** Whether a rollback is told to WEBHOOK_URL. */
  webhooks: boolean;
  now?: () => Date;
}

/** One look at every remote: rolls back what made things worse; resolves with what it rolled back. */
export async function watchReleases({
  settings,
  db,
  log,
  minutes,
  webhooks,
  now = () => new Date(),
}: ReleaseWatchOptions) {
  const data = fieldData(db, now);
  const ledger = ledgerOf(settings);
  const rolledBack: { remote: string; from: string; to: string; why: string }[] = [];
  for (const remote of remoteNames) {
    const watched = watchedRelease(await ledger.records(remote), now(), minutes);
    if (!watched || (await ledger.liveVersion(remote)) !== watched.version) continue;
    const next = await data.versionFigures({ remote, version: watched.version, since: watched.since });
    if (next.views < minViews) continue;
    const previous = await data.versionFigures({
      remote,
      version: watched.previous,
      since: new Date(watched.since.getTime() - previousWindowMs),
      routes: next.routes,
    });
    const why = rollbackReason(next, previous);
    if (!why) continue;
    const change = await watchRollback(settings, remote, { from: watched.version, to: watched.previous, why });
    if (!change) continue;
    const folder = remotes[remote].folder;
    log.warn({ remote: folder, from: watched.version, to: watched.previous, why }, 'release rolled back by the watch');
    if (webhooks)
      await queueRollbackWebhook(
        db,
        { remote: folder, from: watched.version, to: watched.previous, reason: why },
        now(),
      );
    rolledBack.push({ remote: folder, from: watched.version, to: watched.previous, why });
  }
  return rolledBack;
}

/** Looks every `intervalMs` (30 s) until stopped; a failed look is logged and the next one tries again. */
export function startReleaseWatch(options: ReleaseWatchOptions) {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    watchReleases(options)
      .catch((error: unknown) => options.log.error({ err: error }, 'release watch failed; it will look again'))
      .finally(() => (running = false));
  }, options.intervalMs ?? 30_000);
  timer.unref();
  return () => clearInterval(timer);
}

// watch/: the release watch: a promoted version that made things worse in the field is rolled back, at the ledger.
import type { FastifyBaseLogger } from 'fastify';
import {
  defaultRule,
  faultReason,
  isDatabaseAway,
  judgeRelease,
  outageLog,
  queueRollbackWebhook,
  type DecisionRule,
  type Db,
} from 'api/commands';
import { remoteNames, remotes } from '@gift/federation';
import { ledgerOf, watchRollback, type ReleaseSettings } from '../ledger/switches.ts';
import { watchedRelease } from '../ledger/records.ts';
import { watchRollouts } from './rollout-watch.ts';
import { siteEvents } from '../metrics/events.ts';

/**
 * The release watch: for RELEASE_WATCH_MINUTES after a promote, the field data of the new version is compared with the
 * version before it on the same routes, and a version that made things worse is rolled back by itself. It counts only
 * views the site vouched for, from enough networks, none dominant (the API's `countedFigures` and `decide`).
 */

export { watchedRelease };

export interface ReleaseWatchOptions {
  settings: ReleaseSettings;
  db: Db;
  log: FastifyBaseLogger;
  /** RELEASE_WATCH_MINUTES: how long after a promote a version is watched. */
  minutes: number;
  /** The judge's RELEASE_WATCH_* settings (the API's). */
  rule?: DecisionRule;
  /** How often the field data is read. */
  intervalMs?: number;
  /** Whether a rollback is told to WEBHOOK_URL. */
  webhooks: boolean;
  now?: () => Date;
  /** False until the database was first reached: the watch waits. */
  databaseReady?: () => boolean;
}

/** One look at every remote: rolls back what made things worse; resolves with what it rolled back. */
export async function watchReleases({
  settings,
  db,
  log,
  minutes,
  rule = defaultRule,
  webhooks,
  now = () => new Date(),
}: ReleaseWatchOptions) {
  const ledger = ledgerOf(settings);
  const rolledBack: { remote: string; from: string; to: string; why: string }[] = [];
  for (const remote of remoteNames) {
    const watched = watchedRelease(await ledger.records(remote), now(), minutes);
    if (!watched || (await ledger.liveVersion(remote)) !== watched.version) continue;
    const { decision } = await judgeRelease(db, { remote, ...watched }, rule, now);
    const folder = remotes[remote].folder;
    if (decision.verdict !== 'roll back') {
      siteEvents.verdict({ remote: folder, kind: 'waiting' });
      continue;
    }
    const why = decision.why;
    const change = await watchRollback(settings, remote, { from: watched.version, to: watched.previous, why });
    if (!change) continue;
    siteEvents.verdict({ remote: folder, kind: 'rolled_back' });
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

/**
 * Looks every `intervalMs` (30 s) until stopped, at the releases under watch (unless `minutes` is 0) and the rollouts
 * under way; a failed look is logged and the next one tries again. While the database is away the watch pauses: said
 * once at warn when it starts and once when it looks again (it decides nothing on what it could not read).
 */
export function startReleaseWatch(options: ReleaseWatchOptions) {
  let running = false;
  const outage = outageLog(options.log);
  const paused = 'the release watch (its database)';
  const timer = setInterval(() => {
    if (running || options.databaseReady?.() === false) return;
    running = true;
    (options.minutes > 0 ? watchReleases(options) : Promise.resolve())
      .then(() => watchRollouts(options))
      .then(() => {
        outage.works(paused);
        siteEvents.look({ at: Date.now(), intervalMs: options.intervalMs ?? 30_000 });
      })
      .catch((error: unknown) => {
        if (isDatabaseAway(error as Error))
          outage.failed(paused, faultReason(error as Error), 'it pauses and looks again every interval');
        else options.log.error({ err: error }, 'release watch failed; it will look again');
      })
      .finally(() => (running = false));
  }, options.intervalMs ?? 30_000);
  timer.unref();
  return () => clearInterval(timer);
}

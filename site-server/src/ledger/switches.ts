import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { remotes, type RemoteName } from '@gift/federation';
import type { Db } from 'api';
import { fileLedger, postgresLedger, ReleaseError, type ReleaseLedger } from './ledger.ts';
import type { BuildLimits } from './build-limits.ts';

/**
 * Where the releases of a site live and how one changes them: the settings the release tool and the serving side
 * share, a remote's lock (one switch of a remote at a time, whoever makes it), and the watch's conditional rollback.
 */

/**
 * The settings of releases kept in PostgreSQL (`db`) with their builds published from `remotesDir` at the CDN's
 * `remotesBaseUrl`, as production has them (the cluster check, the fault suite, the restart bench).
 */
export const cdnReleaseSettings = (
  root: string,
  db: Db,
  remotesDir: string,
  remotesBaseUrl: string,
): ReleaseSettings => ({
  root,
  remotesDir,
  manifestFile: '',
  remotesBaseUrl,
  ledger: postgresLedger(db, remotesBaseUrl),
});

export interface ReleaseSettings {
  /** Workspace root, where each remote's folder and build are. */
  root: string;
  /** The folder of deployed builds: `<remote folder>/<version>/` (REMOTES_DIR, as the site server reads it). */
  remotesDir: string;
  /** The manifest the site server reads on every request (REMOTES_MANIFEST). */
  manifestFile: string;
  /** Where `remotesDir` is published: `/remotes/` when the site serves it, a CDN's URL otherwise. */
  remotesBaseUrl?: string;
  /** Where what is live and each version's events are kept: PostgreSQL's tables, or by default `manifestFile`. */
  ledger?: ReleaseLedger;
  /** What a build may weigh (the site servers' fetch limits); their defaults when not given. */
  limits?: BuildLimits;
}

const fileLedgers = new WeakMap<ReleaseSettings, ReleaseLedger>();
/** The settings' ledger: the database's when given, the manifest file's otherwise. */
export function ledgerOf(settings: ReleaseSettings): ReleaseLedger {
  if (settings.ledger) return settings.ledger;
  let ledger = fileLedgers.get(settings);
  if (!ledger) fileLedgers.set(settings, (ledger = fileLedger(settings)));
  return ledger;
}

/** The folder of a remote's published versions. */
export const versionsDir = (settings: ReleaseSettings, remote: RemoteName) =>
  join(settings.remotesDir, remotes[remote].folder);

/**
 * Holds a remote's release lock (one release of a remote at a time) while `work` runs; `onWait` hears when another
 * release of the same remote holds it, before this one waits for it.
 */
export async function oneReleaseAtATime<T>(
  settings: ReleaseSettings,
  remote: RemoteName,
  work: () => Promise<T>,
  onWait: () => void = () => {},
) {
  mkdirSync(versionsDir(settings, remote), { recursive: true });
  const lock = (retries: number) =>
    lockfile.lock(versionsDir(settings, remote), {
      lockfilePath: join(versionsDir(settings, remote), '.release.lock'),
      stale: 60_000,
      update: 10_000,
      retries: { retries, minTimeout: 1000, maxTimeout: 5000, factor: 1.2 },
      onCompromised: (error) => {
        throw error;
      },
    });
  const lockPath = join(versionsDir(settings, remote), '.release.lock');
  const unlock = await lock(0)
    .catch(() => {
      // Held by a release whose process is gone (killed mid-release): taken over at once, not after it goes stale.
      if (!holderIsGone(lockPath)) throw new Error('held');
      rmSync(lockPath, { recursive: true, force: true });
      console.warn(
        `Took over ${remotes[remote].folder}'s release lock from a release that is gone (${holderOf(lockPath)}).`,
      );
      return lock(0);
    })
    .catch(() => {
      onWait();
      return lock(120);
    })
    .catch((error: unknown) => {
      throw new ReleaseError(
        `Another release of ${remotes[remote].folder} is still under way: ${(error as Error).message}`,
      );
    });
  // Who holds it, beside it (the lock is a folder its library removes empty), for a later release to tell whether it
  // still runs: this machine (by a hash of its name: the folder is published) and the process.
  writeFileSync(`${lockPath}.holder`, `${thisMachine()} ${process.pid}`);
  try {
    return await work();
  } finally {
    rmSync(`${lockPath}.holder`, { force: true });
    await unlock();
  }
}

/** This machine, as a release lock's holder names it: a hash of its name, not the name. */
export const thisMachine = () => createHash('sha256').update(hostname()).digest('hex').slice(0, 16);

const holderOf = (lockPath: string) => {
  try {
    return readFileSync(`${lockPath}.holder`, 'utf8').trim();
  } catch {
    return '';
  }
};

/** Whether a release lock's holder is a process of this machine that no longer runs. */
function holderIsGone(lockPath: string) {
  const [host, pid] = holderOf(lockPath).split(' ');
  if (host !== thisMachine() || !/^\d+$/.test(pid ?? '')) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Whether a release of the remote is under way now: its lock is held by a process that still runs (this machine's) or
 * kept fresh lately (another machine's: the lock's library touches it every 10 s).
 */
export function releaseUnderWay(settings: ReleaseSettings, remote: RemoteName) {
  const lockPath = join(versionsDir(settings, remote), '.release.lock');
  try {
    return !holderIsGone(lockPath) && Date.now() - statSync(lockPath).mtimeMs < 60_000;
  } catch {
    return false;
  }
}

/**
 * The release watch's rollback: back from `from` to `to`, only if `from` is still live (a release made meanwhile, or
 * another server's watch, wins), with `why` recorded against `from`. Resolves with the versions switched, or
 * undefined when nothing changed.
 */
export async function watchRollback(
  settings: ReleaseSettings,
  remote: RemoteName,
  { from, to, why }: { from: string; to: string; why: string },
): Promise<{ from: string; to: string } | undefined> {
  return oneReleaseAtATime(settings, remote, async () => {
    const ledger = ledgerOf(settings);
    if (!(await ledger.versions(remote)).includes(to)) return undefined;
    // Only while `from` is live, checked in the same step as the switch: another server's watch may be first.
    const switched = await ledger.switchTo(
      remote,
      to,
      [
        { version: from, event: { event: 'rolled-back', why } },
        { version: to, event: { event: 'live', how: 'rollback' } },
      ],
      from,
    );
    return switched && { from, to };
  });
}

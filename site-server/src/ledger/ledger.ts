// ledger/: the one seam of the release tool and the server: what is live, what happened, preview grants.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import type { Db } from 'api';
import { remotes, type RemoteName, type RemotesManifest } from '@gift/federation';
import { operator, record, recordsOf, verdictOf, type ReleaseEvent, type ReleaseRecord } from './records.ts';
import { versionEntryUrl } from './versions.ts';
import {
  asRollout,
  readRolloutsFile,
  rolloutEntriesOf,
  rolloutProblems,
  rolloutsFile,
  writeRollout,
  type Rollout,
} from './rollouts.ts';

/** A refusal the release commands explain to the operator; anything else is a bug. */
export class ReleaseError extends Error {}

/** The channel a switch is announced on (PostgreSQL `NOTIFY`), with the remote's name as the payload. */
export const releasesChannel = 'site_releases';

/**
 * Where the truth of the releases lives, and the one way to change it: the manifest file and its JSON lines on one
 * machine, or PostgreSQL's `site_releases` and `site_release_events` for every site server that shares the database.
 */
export interface ReleaseLedger {
  /** Where the truth lives, as an operator reads it. */
  readonly where: string;
  /** The versions of a remote published so far, oldest first (a version's name starts with its time). */
  versions(remote: RemoteName): Promise<string[]>;
  /** The live entry of every remote that has one. */
  manifest(): Promise<RemotesManifest>;
  liveVersion(remote: RemoteName): Promise<string | undefined>;
  /** Every event of a remote, oldest first. */
  records(remote: RemoteName): Promise<ReleaseRecord[]>;
  record(remote: RemoteName, version: string, event: ReleaseEvent): Promise<void>;
  /** A version whose build was just published: its entry and every file's SHA-256, by its path in the build. */
  published(remote: RemoteName, version: string, files: Map<string, string>): Promise<void>;
  /**
   * Makes `to` the live version of `remote` and records `events` with it, in one step. With `onlyIfLive`, only while
   * that version is still live: undefined otherwise. Resolves with the version live before and the manifest after.
   */
  switchTo(
    remote: RemoteName,
    to: string,
    events: { version: string; event: ReleaseEvent }[],
    onlyIfLive?: string,
    /** The rollout of `to` that this switch completes: it ends in the same step. */
    completes?: Rollout,
  ): Promise<{ from?: string; after: RemotesManifest } | undefined>;
  /** The staged rollouts under way, by remote. */
  rollouts(): Promise<Partial<Record<RemoteName, Rollout>>>;
  /** The entries `rollouts` passes over, by remote, with why each is not a rollout. */
  invalidRollouts(): Promise<Record<string, string>>;
  /**
   * Changes a remote's rollout in one step with `events`: `change` is given the rollout under way (or none) and the
   * live version, and returns the rollout after (null: none), or undefined to change nothing (another server or
   * command was first). Resolves with the rollout after, or undefined when nothing changed.
   */
  changeRollout(
    remote: RemoteName,
    change: (rollout: Rollout | undefined, live: string | undefined) => Rollout | null | undefined,
    events: { version: string; event: ReleaseEvent }[],
  ): Promise<{ after: Rollout | null } | undefined>;
}

/** A rollout's change, checked: the remote's own, of a version of its own. */
function checkedRollout(remote: RemoteName, rollout: Rollout | null) {
  if (rollout && (rollout.remote !== remote || !asRollout(rollout))) {
    throw new Error(`Not a rollout of ${remote}: ${JSON.stringify(rollout)}`);
  }
  return rollout;
}

export function readManifestFile(manifestFile: string): RemotesManifest {
  if (!existsSync(manifestFile)) return {};
  try {
    return JSON.parse(readFileSync(manifestFile, 'utf8')) as RemotesManifest;
  } catch (error) {
    throw new ReleaseError(
      `The manifest ${manifestFile} is not valid JSON (${(error as Error).message}); nothing was changed.`,
    );
  }
}

/**
 * Changes the manifest under a lock, so that two commands at once never lose each other's change, and replaces the
 * file in one rename, so that a reader sees the old manifest or the new one, never half of one.
 */
export async function switchManifest(
  manifestFile: string,
  change: (manifest: RemotesManifest) => RemotesManifest,
): Promise<{ before: RemotesManifest; after: RemotesManifest }> {
  const unlock = await lockfile.lock(manifestFile, {
    realpath: false,
    stale: 10_000,
    retries: { retries: 50, minTimeout: 20, maxTimeout: 200 },
  });
  try {
    const before = readManifestFile(manifestFile);
    const after = change({ ...before });
    await writeFileAtomic(manifestFile, `${JSON.stringify(after, null, 2)}\n`, { fsync: true });
    return { before, after };
  } finally {
    await unlock();
  }
}

/** The folders of deployed builds, the manifest file and the JSON lines beside it: the ledger without a database. */
export function fileLedger({
  remotesDir,
  manifestFile,
  remotesBaseUrl,
}: {
  remotesDir: string;
  manifestFile: string;
  remotesBaseUrl?: string;
}): ReleaseLedger {
  const versions = (remote: RemoteName) => {
    const dir = join(remotesDir, remotes[remote].folder);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  };
  const liveVersion = (remote: RemoteName) => {
    const entry = readManifestFile(manifestFile)[remote];
    return versions(remote).find((version) => entry === versionEntryUrl(remote, version, remotesBaseUrl));
  };
  const rollouts = rolloutsFile(manifestFile);
  return {
    where: manifestFile,
    versions: async (remote) => versions(remote),
    manifest: async () => readManifestFile(manifestFile),
    liveVersion: async (remote) => liveVersion(remote),
    records: async (remote) => recordsOf(manifestFile, remote),
    record: async (remote, version, event) => record(manifestFile, remote, version, event),
    published: async (remote, version) => record(manifestFile, remote, version, { event: 'published' }),
    async switchTo(remote, to, events, onlyIfLive, completes) {
      const from = liveVersion(remote);
      if (onlyIfLive !== undefined && from !== onlyIfLive) return undefined;
      if (completes && readRolloutsFile(rollouts)[remote]?.version !== completes.version) return undefined;
      const entry = versionEntryUrl(remote, to, remotesBaseUrl);
      const { after } = await switchManifest(manifestFile, (manifest) => ({ ...manifest, [remote]: entry }));
      // After the manifest: a server that reads between the two files serves the new version to everyone either way.
      if (completes) await writeRollout(rollouts, remote, undefined);
      for (const { version, event } of events) record(manifestFile, remote, version, event);
      return { from, after };
    },
    rollouts: async () => readRolloutsFile(rollouts),
    invalidRollouts: async () => rolloutProblems(rolloutEntriesOf(rollouts)),
    async changeRollout(remote, change, events) {
      // The caller holds the remote's release lock (oneReleaseAtATime): nothing changes it between read and write.
      const changed = change(readRolloutsFile(rollouts)[remote], liveVersion(remote));
      if (changed === undefined) return undefined;
      const after = checkedRollout(remote, changed);
      await writeRollout(rollouts, remote, after ?? undefined);
      for (const { version, event } of events) record(manifestFile, remote, version, event);
      return { after };
    },
  };
}

/** The event as the JSON lines hold it, without the fields every record has. */
const detailOf = (event: ReleaseEvent) =>
  JSON.stringify(Object.fromEntries(Object.entries(event).filter(([key]) => key !== 'event')));

/**
 * The releases in PostgreSQL: a row per published version (its entry, its files' hashes, its verdict, whether it is
 * live) and a row per event. A switch is one transaction that ends with `NOTIFY site_releases`, which PostgreSQL
 * delivers when it commits; a second switch of the same remote waits for the first (the rows are locked).
 */
export function postgresLedger(db: Db, remotesBaseUrl?: string): ReleaseLedger {
  const where = 'PostgreSQL (site_releases)';
  const now = () => new Date().toISOString();
  const manifestOf = async (query: Db) =>
    Object.fromEntries(
      (await query.selectFrom('site_releases').select(['remote', 'entry']).where('live', '=', true).execute()).map(
        (row) => [row.remote, row.entry],
      ),
    ) as RemotesManifest;
  const recordsOfRemote = async (query: Db, remote: RemoteName) =>
    (
      await query
        .selectFrom('site_release_events')
        .select(['version', 'event', 'detail', 'who', 'at'])
        .where('remote', '=', remote)
        .orderBy('id')
        .execute()
    ).map(
      (row) =>
        ({
          remote,
          version: row.version,
          event: row.event,
          ...(JSON.parse(row.detail) as object),
          who: row.who,
          at: row.at,
        }) as ReleaseRecord,
    );
  /** A remote's versions and which is live, their rows locked until the transaction ends (one change at a time). */
  const lockReleases = (query: Db, remote: RemoteName) =>
    query.selectFrom('site_releases').select(['version', 'live']).where('remote', '=', remote).forUpdate().execute();
  const insertEvent = (query: Db, remote: RemoteName, version: string, event: ReleaseEvent) =>
    query
      .insertInto('site_release_events')
      .values({ remote, version, event: event.event, detail: detailOf(event), who: operator(), at: now() })
      .execute();

  return {
    where,
    async versions(remote) {
      const rows = await db
        .selectFrom('site_releases')
        .select('version')
        .where('remote', '=', remote)
        .orderBy('version')
        .execute();
      return rows.map((row) => row.version);
    },
    manifest: () => manifestOf(db),
    async liveVersion(remote) {
      const row = await db
        .selectFrom('site_releases')
        .select('version')
        .where('remote', '=', remote)
        .where('live', '=', true)
        .executeTakeFirst();
      return row?.version;
    },
    records: (remote) => recordsOfRemote(db, remote),
    async record(remote, version, event) {
      await db.transaction().execute(async (trx) => {
        await insertEvent(trx, remote, version, event);
        if (['passed', 'refused', 'forced'].includes(event.event)) {
          const verdict = verdictOf(await recordsOfRemote(trx, remote), version);
          await trx
            .updateTable('site_releases')
            .set({ verdict })
            .where('remote', '=', remote)
            .where('version', '=', version)
            .execute();
        }
      });
    },
    async published(remote, version, files) {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('site_releases')
          .values({
            remote,
            version,
            entry: versionEntryUrl(remote, version, remotesBaseUrl),
            files: JSON.stringify(Object.fromEntries(files)),
            verdict: null,
            published_by: operator(),
            published_at: now(),
            live: false,
            switched_at: null,
          })
          .execute();
        await insertEvent(trx, remote, version, { event: 'published' });
      });
    },
    switchTo(remote, to, events, onlyIfLive, completes) {
      return db.transaction().execute(async (trx) => {
        const rows = await lockReleases(trx, remote);
        const from = rows.find((row) => row.live)?.version;
        if (onlyIfLive !== undefined && from !== onlyIfLive) return undefined;
        if (completes) {
          const ended = await trx
            .deleteFrom('site_rollouts')
            .where('remote', '=', remote)
            .where('version', '=', completes.version)
            .executeTakeFirst();
          // Another server's decision or an operator's command came first.
          if (Number(ended.numDeletedRows) === 0) return undefined;
        }
        if (!rows.some((row) => row.version === to)) {
          throw new ReleaseError(`${remotes[remote].folder} has no version ${to} in ${where}.`);
        }
        await trx
          .updateTable('site_releases')
          .set({ live: false })
          .where('remote', '=', remote)
          .where('live', '=', true)
          .execute();
        await trx
          .updateTable('site_releases')
          .set({ live: true, switched_at: now() })
          .where('remote', '=', remote)
          .where('version', '=', to)
          .execute();
        for (const { version, event } of events) await insertEvent(trx, remote, version, event);
        await sql`select pg_notify(${releasesChannel}, ${remote})`.execute(trx);
        return { from, after: await manifestOf(trx) };
      });
    },
    async rollouts() {
      return rolloutsOf(await db.selectFrom('site_rollouts').select('state').execute());
    },
    async invalidRollouts() {
      const rows = await db.selectFrom('site_rollouts').select(['remote', 'state']).execute();
      return rolloutProblems(
        rows.map(({ remote, state }): [string, unknown] => {
          try {
            return [remote, JSON.parse(state)];
          } catch {
            return [remote, undefined];
          }
        }),
      );
    },
    changeRollout(remote, change, events) {
      return db.transaction().execute(async (trx) => {
        // The live row locked first, as a switch locks it: a rollout and a switch of one remote never cross.
        const live = await lockReleases(trx, remote);
        const row = await trx
          .selectFrom('site_rollouts')
          .select('state')
          .where('remote', '=', remote)
          .forUpdate()
          .executeTakeFirst();
        const changed = change(row && asRollout(JSON.parse(row.state)), live.find((release) => release.live)?.version);
        if (changed === undefined) return undefined;
        const after = checkedRollout(remote, changed);
        await trx.deleteFrom('site_rollouts').where('remote', '=', remote).execute();
        if (after) {
          await trx
            .insertInto('site_rollouts')
            .values({ remote, version: after.version, state: JSON.stringify(after) })
            .execute();
        }
        for (const { version, event } of events) await insertEvent(trx, remote, version, event);
        await sql`select pg_notify(${releasesChannel}, ${remote})`.execute(trx);
        return { after };
      });
    },
  };
}

/** The rollouts in `site_rollouts`'s rows, by remote; a row that is not a rollout is passed over. */
export function rolloutsOf(rows: { state: string }[]): Partial<Record<RemoteName, Rollout>> {
  return Object.fromEntries(
    rows.flatMap(({ state }) => {
      try {
        const rollout = asRollout(JSON.parse(state));
        return rollout ? [[rollout.remote, rollout]] : [];
      } catch {
        return [];
      }
    }),
  );
}

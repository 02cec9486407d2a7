import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { faultReason, outageLog } from 'api/commands';
import { remoteEntryFile, remoteNames, remotes, type RemoteName, type RemotesManifest } from '@gift/federation';
import { RefusedBuild, type BuildCache } from './build-cache.ts';
import { isVersionName } from '../ledger/versions.ts';
import type { ManifestStatus } from './manifest-source.ts';
import { releasesChannel, rolloutsOf } from '../ledger/ledger.ts';
import { splitOf, type Splits } from '../ledger/rollouts.ts';

export interface DatabaseReleasesOptions {
  /** The PostgreSQL that `pnpm promote` and `pnpm rollback` switch (DATABASE_URL). */
  databaseUrl: string;
  log: FastifyBaseLogger;
  /** Fetches a live version's server build from the CDN when this server lacks it; none when builds are on disk. */
  cache?: BuildCache;
  /**
   * Without a cache, the folder of the builds on disk (REMOTES_DIR): a version is taken once its entry is there, so a
   * live row that names files this server does not have never makes its pages point at nothing.
   */
  remotesDir?: string;
  /** How often the table is read besides the notifications, which also tells a dead connection. */
  heartbeatMs?: number;
  /**
   * First wait before connecting again after the connection is lost; it doubles up to 2 s, so that the releases are
   * followed again within 2 s of PostgreSQL's return (one connection attempt each time).
   */
  reconnectMs?: number;
}

/** What a site server that follows the database reports: what it serves, and how recently it heard the truth. */
export interface ReleasesStatus extends ManifestStatus {
  source: 'postgresql';
  /** The version each remote is served with here (`folder: version`). */
  live: Record<string, string>;
  /** Milliseconds since the table was last read; undefined before the first read. */
  lastHeardMs?: number;
  /** Versions the table names live that this server does not serve, and why. */
  behind?: Record<string, string>;
}

/** How many events of one kind the ledger holds for one remote (by its folder). */
export interface ReleaseEventCount {
  remote: string;
  event: string;
  count: number;
}

interface LiveRow {
  remote: string;
  version: string;
  entry: string;
}

/** PostgreSQL's code for a table that does not exist. */
const undefinedTable = '42P01';

const isRemote = (name: string): name is RemoteName => (remoteNames as readonly string[]).includes(name);

interface LastLive {
  /** The manifest pages were composed with. */
  serving: RemotesManifest;
  /** The version of each remote (`folder: version`). */
  versions: Record<string, string>;
}

/** Writes what is served now beside the builds (a temporary file renamed, so a crash leaves the old one whole). */
function keepLastLive(
  file: string,
  serving: RemotesManifest,
  versions: Record<string, string>,
  log: FastifyBaseLogger,
) {
  try {
    writeFileSync(`${file}.partial`, JSON.stringify({ serving, versions } satisfies LastLive));
    renameSync(`${file}.partial`, file);
  } catch (error) {
    log.warn({ err: error }, 'the live versions could not be kept for a restart without the database');
  }
}

/** The live versions a run before this one kept, when every build they name is still on disk; undefined otherwise. */
function restoreLastLive(file: string, remotesDir: string): LastLive | undefined {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as LastLive;
    const remotesServed = Object.keys(kept.serving);
    const whole =
      remotesServed.length > 0 &&
      remotesServed.every((remote) => {
        if (!isRemote(remote) || typeof kept.serving[remote] !== 'string') return false;
        const version = kept.versions[remotes[remote].folder];
        return (
          typeof version === 'string' &&
          isVersionName(version) &&
          // A build on disk (its entry), or its server build the cache fetched (its federation manifest).
          ['remoteEntry.js', 'mf-manifest.json'].some((file) =>
            existsSync(join(remotesDir, remotes[remote].folder, version, file)),
          )
        );
      });
    return whole ? kept : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The releases as PostgreSQL's `site_releases` holds them, followed by one connection that `LISTEN`s on
 * `site_releases`: a switch is read again as soon as it commits, every `heartbeatMs` (10 s) anyway, and at once after
 * the connection comes back, so a notification missed while it was down never leaves this server behind. A remote
 * switches here only once its new build is on disk and checked (`cache`); until then, or when it is refused, the
 * version before keeps serving, so a page is always rendered with a build this server has.
 */
export function databaseReleases({
  databaseUrl,
  log,
  cache,
  remotesDir,
  heartbeatMs = 10_000,
  reconnectMs = 500,
}: DatabaseReleasesOptions) {
  let serving: RemotesManifest = {};
  let splits: Splits = {};
  const servingVersions: Record<string, string> = {};
  /** The canaries of the rollouts served here (`folder/version`): kept by the cache as the live builds are. */
  let canaries: string[] = [];
  /** Canaries this server cannot serve, and why, by folder: logged once each. */
  const refusedCanaries: Record<string, string> = {};
  const behind: Record<string, string> = {};
  let heardAt: number | undefined;
  let client: pg.Client | undefined;
  let closed = false;
  let syncing: Promise<void> | undefined;
  let again = false;
  let ready: () => void;
  const firstSync = new Promise<void>((resolve) => (ready = resolve));
  // The live versions read last, kept beside the builds: a server that starts while PostgreSQL is away serves them
  // (their builds are still on disk) instead of waiting for the database to listen. Only then: with the database
  // there, it is read first, as a release made while this server was down must be served from its first page.
  const lastLiveFile = remotesDir && join(remotesDir, '.live.json');
  const restored = lastLiveFile ? restoreLastLive(lastLiveFile, remotesDir!) : undefined;
  if (restored) {
    serving = restored.serving;
    Object.assign(servingVersions, restored.versions);
  }
  let eventCounts: ReleaseEventCount[] = [];
  /** Whether a whole read ended: the live versions read, and each one's build here or refused. */
  let firstReadDone = false;
  /** Whether the versions read before this start are served, PostgreSQL being away since it started. */
  let servingRestored = false;
  let written = serving;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let schemaTimer: NodeJS.Timeout | undefined;
  /** Whether the last read found no `site_releases` table (a database no server has migrated yet). */
  let waitingForSchema = false;
  const outage = outageLog(log);

  /** The builds served here now (`folder/version`): the cache keeps them whatever its size. */
  const served = () => [
    ...Object.entries(servingVersions).map(([folder, version]) => `${folder}/${version}`),
    ...canaries,
  ];

  /** The files of a published version with their hashes, as its release recorded them. */
  const recordedFiles = (connection: pg.Client, remote: RemoteName, version: string) => async () => {
    const result = await connection.query<{ files: string }>(
      'select files from site_releases where remote = $1 and version = $2',
      [remote, version],
    );
    if (!result.rows[0]) throw new Error(`${remotes[remote].folder} has no version ${version}`);
    return JSON.parse(result.rows[0].files) as Record<string, string>;
  };

  /**
   * Makes sure a version's build is here: fetched from the CDN into the cache, or (builds on disk) its entry in
   * REMOTES_DIR, so that a row naming files this server lacks never makes its pages point at nothing; it is taken at
   * the first read after they appear.
   */
  async function haveBuild(
    remote: RemoteName,
    version: string,
    recorded: () => Promise<Record<string, string>>,
    keep: string[],
  ) {
    const folder = remotes[remote].folder;
    if (cache) return cache.ensure(remote, version, recorded, keep);
    if (remotesDir && !existsSync(join(remotesDir, folder, version, remoteEntryFile)))
      throw new RefusedBuild(`${folder}/${version}/${remoteEntryFile}`, 'is not in REMOTES_DIR on this server');
  }

  /** Reads the live versions and takes each one that changed, once its build is here. */
  async function syncOnce(connection: pg.Client) {
    const { rows } = await connection.query<LiveRow>('select remote, version, entry from site_releases where live');
    heardAt = Date.now();
    if (waitingForSchema) {
      waitingForSchema = false;
      outage.works('reading the releases');
    }
    const live = rows.filter((row) => isRemote(row.remote));
    const keep = live.map((row) => `${remotes[row.remote as RemoteName].folder}/${row.version}`);
    let next = serving;
    for (const row of live) {
      const remote = row.remote as RemoteName;
      const folder = remotes[remote].folder;
      // Served already (a refused version was switched back from): nothing is behind any more.
      if (serving[remote] === row.entry) {
        delete behind[folder];
        continue;
      }
      try {
        // A version becomes a folder's name and a URL's part: a row that holds anything else is refused.
        if (!isVersionName(row.version)) throw new RefusedBuild(row.version.slice(0, 100), 'is not a version name');
        await haveBuild(remote, row.version, recordedFiles(connection, remote, row.version), [...keep, ...served()]);
      } catch (error) {
        const why = error instanceof RefusedBuild ? error.message : `the build cannot be had (${String(error)})`;
        if (behind[folder] !== `${row.version}: ${why}`) {
          log.error(
            { remote: folder, version: row.version, file: error instanceof RefusedBuild ? error.file : undefined, why },
            `refused ${folder} ${row.version}: ${why}; ${servingVersions[folder] ?? 'no version'} keeps serving`,
          );
        }
        behind[folder] = `${row.version}: ${why}`;
        continue;
      }
      log.info({ remote: folder, from: servingVersions[folder], to: row.version }, 'release switched');
      delete behind[folder];
      servingVersions[folder] = row.version;
      next = { ...next, [remote]: row.entry };
    }
    // A remote the table no longer names live (a table emptied by hand) keeps what it served: nothing to switch to.
    serving = next;
    await syncRollouts(connection, keep);
    // How many of each kind of event the ledger holds per remote: a rollout's stages and end, an experiment's start
    // and end, each rollback, kept as metrics after the rollout is over (its gauges end with it).
    // Metrics only: a failure keeps the counts read last and never fails the read of what is live.
    const counted = await connection
      .query<{ remote: string; event: string; n: string }>(
        'select remote, event, count(*) as n from site_release_events group by remote, event',
      )
      .catch(() => undefined);
    if (counted) {
      eventCounts = counted.rows
        .filter((row) => isRemote(row.remote))
        .map((row) => ({ remote: remotes[row.remote as RemoteName].folder, event: row.event, count: Number(row.n) }));
    }
  }

  /**
   * The rollouts under way: a canary is split off here once its build is here; until then (or when it is refused) its
   * visitors keep the current version. The same object until a rollout changes.
   */
  async function syncRollouts(connection: pg.Client, keep: string[]) {
    const { rows } = await connection.query<{ state: string }>('select state from site_rollouts');
    const next: Splits = {};
    for (const rollout of Object.values(rolloutsOf(rows))) {
      const folder = remotes[rollout.remote].folder;
      try {
        await haveBuild(rollout.remote, rollout.version, recordedFiles(connection, rollout.remote, rollout.version), [
          ...keep,
          ...served(),
          `${folder}/${rollout.version}`,
        ]);
      } catch (error) {
        const why = error instanceof RefusedBuild ? error.message : `the build cannot be had (${String(error)})`;
        // Once per canary and reason, not at every read.
        if (refusedCanaries[folder] !== `${rollout.version}: ${why}`) {
          log.error({ remote: folder, version: rollout.version, why }, `rollout of ${folder} not served here: ${why}`);
        }
        refusedCanaries[folder] = `${rollout.version}: ${why}`;
        continue;
      }
      delete refusedCanaries[remotes[rollout.remote].folder];
      next[rollout.remote] = splitOf(rollout);
    }
    canaries = Object.entries(next).map(
      ([remote, split]) => `${remotes[remote as RemoteName].folder}/${split.version}`,
    );
    if (JSON.stringify(next) !== JSON.stringify(splits)) {
      if (Object.keys(next).length || Object.keys(splits).length) log.info({ rollouts: next }, 'rollouts changed');
      splits = next;
    }
  }

  /** One read at a time; a notification that arrives meanwhile asks for one more read after it. */
  function sync(): Promise<void> {
    if (syncing) {
      again = true;
      return syncing;
    }
    const connection = client;
    if (!connection) return Promise.resolve();
    syncing = (async () => {
      do {
        again = false;
        await syncOnce(connection);
      } while (again && !closed);
    })()
      .catch((error: unknown) => {
        // An empty database: the first server to reach it migrates (under the migrations' lock), and until then
        // this one reads again every second, said once each way.
        if ((error as { code?: string }).code === undefinedTable) {
          waitingForSchema = true;
          outage.failed(
            'reading the releases',
            `the schema is not there yet (${(error as Error).message})`,
            'waiting for the migrations, which the first server to reach the database runs',
          );
          clearTimeout(schemaTimer);
          schemaTimer = setTimeout(() => void sync(), 1_000);
          return;
        }
        log.warn({ err: error }, 'reading the releases failed; the connection is opened again');
        drop(connection);
      })
      .finally(() => {
        syncing = undefined;
        if (heardAt !== undefined) {
          firstReadDone = true;
          ready();
        }
        if (lastLiveFile && serving !== written) {
          written = serving;
          keepLastLive(lastLiveFile, serving, servingVersions, log);
        }
      });
    return syncing;
  }

  function drop(connection: pg.Client) {
    if (client !== connection) return;
    client = undefined;
    connection.end().catch(() => {});
    if (!closed) reconnectTimer = setTimeout(() => void connect(reconnectMs), reconnectMs);
  }

  async function connect(wait: number): Promise<void> {
    if (closed) return;
    const connection = new pg.Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: 5_000,
      application_name: 'site-releases',
    });
    connection.on('error', (error) => {
      log.warn({ err: error }, 'the connection to the releases was lost; connecting again');
      drop(connection);
    });
    connection.on('end', () => drop(connection));
    connection.on('notification', (message) => {
      if (message.channel === releasesChannel) void sync();
    });
    try {
      await connection.connect();
      await connection.query(`listen ${releasesChannel}`);
    } catch (error) {
      connection.end().catch(() => {});
      const next = Math.min(wait * 2, 2_000);
      // PostgreSQL cannot be reached at start: the versions this server served before are served meanwhile.
      if (restored) {
        servingRestored = true;
        ready();
      }
      outage.failed(
        'following the releases in PostgreSQL',
        faultReason(error as Error),
        'the live versions read last are served; tried again every 2 s at most',
      );
      reconnectTimer = setTimeout(() => void connect(next), next);
      return;
    }
    outage.works('following the releases in PostgreSQL');
    client = connection;
    // Whatever was switched while this server was not listening.
    await sync();
  }

  void connect(reconnectMs);
  const heartbeat = setInterval(() => void sync(), heartbeatMs);
  heartbeat.unref();

  return {
    /** The manifest pages are composed with now: one object until a remote switches. */
    read: async (): Promise<RemotesManifest> => serving,
    /** The rollouts pages split visitors by now. */
    splits: (): Splits => splits,
    /** Brings a published version's server build here (a preview of a candidate); rejects when it cannot. */
    async fetchVersion(remote: RemoteName, version: string) {
      const connection = client;
      if (!cache || !connection) throw new Error('the releases are not reachable now');
      await cache.ensure(remote, version, recordedFiles(connection, remote, version), served());
    },
    /** The ledger's events by remote and kind, as last read. */
    releaseEvents: () => eventCounts,
    /** Resolves after the first read of the table, with every live build fetched or refused. */
    ready: () => firstSync,
    status(): ReleasesStatus {
      const lastHeardMs = heardAt === undefined ? undefined : Date.now() - heardAt;
      const stale = lastHeardMs === undefined || lastHeardMs > 3 * heartbeatMs;
      const late = Object.keys(behind).length > 0;
      const cdnDiffers = cache?.tamperedAmong(served()) ?? {};
      const tampered = Object.keys(cdnDiffers).length > 0;
      const nothingLive = !Object.keys(serving).length;
      const problem =
        heardAt === undefined && servingRestored
          ? 'the releases in PostgreSQL have not been read since this server started: it serves those it read last'
          : waitingForSchema
            ? 'waiting for the database schema: no server has migrated it yet (each migrates once it reaches the database)'
            : heardAt === undefined
              ? 'the releases in PostgreSQL have not been read yet since this server started'
              : nothingLive
                ? 'no release is live in PostgreSQL yet (pnpm release --all)'
                : stale
                  ? 'the releases in PostgreSQL have not been read lately'
                  : late
                    ? 'a live version is not served here'
                    : tampered
                      ? 'the CDN serves files of a live version unlike its release'
                      : undefined;
      return {
        source: 'postgresql',
        ok: !problem,
        ...(problem ? { problem } : {}),
        ...(tampered ? { cdnDiffers } : {}),
        // Ready once pages stop waiting for the first read: after it, or at once when PostgreSQL is away at start.
        hasManifest: (firstReadDone || servingRestored) && !nothingLive,
        live: { ...servingVersions },
        lastHeardMs,
        ...(late ? { behind: { ...behind } } : {}),
      };
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(reconnectTimer);
      clearTimeout(schemaTimer);
      // A download under way stops at once: the server does not wait for a slow or hostile CDN to stop.
      cache?.close();
      await syncing;
      const connection = client;
      client = undefined;
      await connection?.end().catch(() => {});
    },
  };
}

export type DatabaseReleases = ReturnType<typeof databaseReleases>;

import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMigratedDatabase, type Db } from 'api';
import { freePort, postgresDatabaseUrl, postgresServer } from 'api/test/databases';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCache } from './build-cache.ts';
import { databaseReleases, type DatabaseReleases } from './database-releases.ts';
import { postgresLedger, type ReleaseLedger } from '../ledger/ledger.ts';
import { filesOf } from '../releases/publish.ts';

const postgres = await postgresServer();
afterAll(() => postgres?.stop());

/** The CDN's origin: a folder of versions served over HTTP, as nginx serves REMOTES_DIR. */
async function cdn(folder: string) {
  const server: Server = createServer((request, response) => {
    const file = join(folder, decodeURIComponent(new URL(request.url!, 'http://cdn').pathname));
    if (!existsSync(file) || !statSync(file).isFile()) return response.writeHead(404).end();
    createReadStream(file).pipe(response.writeHead(200));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

/** A build of the vendor remote: a client chunk, its federation manifest and its server bundle saying `copy`. */
function writeBuild(origin: string, version: string, copy: string, padding = 0) {
  const dir = join(origin, 'vendor', version);
  mkdirSync(join(dir, 'ssr'), { recursive: true });
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'remoteEntry.js'), `export const v = ${JSON.stringify(version)};`);
  writeFileSync(join(dir, 'assets', 'page.js'), `console.log(${JSON.stringify(copy)});`);
  writeFileSync(join(dir, 'mf-manifest.json'), JSON.stringify({ exposes: [], version }));
  writeFileSync(join(dir, 'ssr', 'vendor-page.js'), `export default ${JSON.stringify(copy)};${' '.repeat(padding)}`);
  return dir;
}

const logger = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });
const until = async (what: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('not within the time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.skipIf(!postgres)('a site server following the releases in PostgreSQL', () => {
  let databaseUrl: string;
  let db: Db;
  let origin: string;
  let server: Awaited<ReturnType<typeof cdn>>;
  let ledger: ReleaseLedger;
  let following: DatabaseReleases | undefined;
  let log: ReturnType<typeof logger>;

  /** Publishes a build as `pnpm release` does (every file and its hash in the table), then makes it live. */
  async function release(version: string, copy: string) {
    await ledger.published('vendor', version, filesOf(writeBuild(origin, version, copy)));
    await ledger.switchTo('vendor', version, [{ version, event: { event: 'live', how: 'promote' } }]);
  }

  function follow(options: { heartbeatMs?: number; cacheDir?: string; databaseUrl?: string } = {}) {
    log = logger();
    const cacheDir = options.cacheDir ?? mkdtempSync(join(tmpdir(), 'site-cache-'));
    const cacheLog = log as unknown as FastifyBaseLogger;
    following = databaseReleases({
      databaseUrl: options.databaseUrl ?? databaseUrl,
      remotesDir: cacheDir,
      log: cacheLog,
      cache: buildCache({ dir: cacheDir, baseUrl: server.url, maxBytes: 10 * 1024 * 1024, log: cacheLog }),
      heartbeatMs: options.heartbeatMs ?? 60_000,
    });
    return { following, cacheDir };
  }

  beforeAll(async () => {
    databaseUrl = await postgresDatabaseUrl(postgres!.url);
    db = await openMigratedDatabase({ databaseUrl, dataDir: '' });
    origin = mkdtempSync(join(tmpdir(), 'cdn-origin-'));
    server = await cdn(origin);
    ledger = postgresLedger(db, server.url);
    await release('20261126.100000000-aaaaaaaa', 'first copy');
  });
  afterEach(async () => following?.close());
  afterAll(async () => {
    server.close();
    await db.destroy();
  });

  it('starts on an empty folder and serves the live version once its server build is fetched and checked', async () => {
    const { following, cacheDir } = follow();
    await following.ready();
    const live = await ledger.liveVersion('vendor');
    expect(following.status()).toMatchObject({ ok: true, hasManifest: true, live: { vendor: live } });
    expect(await following.read()).toEqual({ vendor: `${server.url}vendor/${live}/remoteEntry.js` });
    // The server bundle and the federation manifest: what rendering needs; browsers get the rest from the CDN.
    expect(existsSync(join(cacheDir, 'vendor', live!, 'ssr', 'vendor-page.js'))).toBe(true);
    expect(existsSync(join(cacheDir, 'vendor', live!, 'mf-manifest.json'))).toBe(true);
    expect(existsSync(join(cacheDir, 'vendor', live!, 'assets', 'page.js'))).toBe(false);
  });

  it('starts while PostgreSQL is away with the live versions it served before, and says so', async () => {
    const { following: before, cacheDir } = follow();
    await before.ready();
    const manifest = await before.read();
    await before.close();
    // Restarted with its database away (a port where nothing answers): it does not wait for it to serve pages.
    const { following: after } = follow({
      cacheDir,
      databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/x`,
    });
    await after.ready();
    expect(await after.read()).toEqual(manifest);
    expect(after.status()).toMatchObject({
      ok: false,
      hasManifest: true,
      problem: /not been read since this server started: it serves those it read last/,
      live: { vendor: await ledger.liveVersion('vendor') },
    });
    // Said once, however many times it tries again meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    const said = log.warn.mock.calls.filter(([, text]) =>
      /following the releases in PostgreSQL fails/.test(String(text)),
    );
    expect(said).toHaveLength(1);
  });

  it('on a database no server has migrated, says it waits for the schema once, then serves what is released', async () => {
    const emptyUrl = await postgresDatabaseUrl(postgres!.url);
    const { following } = follow({ databaseUrl: emptyUrl });
    await until(() => /waiting for the database schema/.test(following.status().problem ?? ''));
    expect(following.status()).toMatchObject({ ok: false, hasManifest: false });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // The first server to reach it migrates; nothing is live yet, which it says.
    const migrated = await openMigratedDatabase({ databaseUrl: emptyUrl, dataDir: '' });
    try {
      await until(() => /no release is live/.test(following.status().problem ?? ''));
      expect(following.status()).toMatchObject({ ok: false, hasManifest: false });
      const emptyLedger = postgresLedger(migrated, server.url);
      const version = '20261202.100000000-bbbbbbbb';
      await emptyLedger.published('vendor', version, filesOf(writeBuild(origin, version, 'on a new database')));
      await emptyLedger.switchTo('vendor', version, [{ version, event: { event: 'live', how: 'promote' } }]);
      // Taken from the notification of the switch.
      await until(() => following.status().ok);
      expect(following.status()).toMatchObject({ ok: true, hasManifest: true, live: { vendor: version } });
    } finally {
      await migrated.destroy();
    }
    // One line each way, however many reads found no table; no stack. The failure a warning, the recovery news.
    const lines = (level: 'warn' | 'info') =>
      log[level].mock.calls.map(([, text]) => String(text)).filter((text) => /reading the releases/.test(text));
    expect(lines('warn')).toEqual([
      expect.stringMatching(/^reading the releases fails: the schema is not there yet \(relation "site_releases"/),
    ]);
    expect(lines('info')).toEqual(['reading the releases works again']);
  });
  it('switches as soon as a promote commits, from the notification alone', async () => {
    const { following } = follow();
    await following.ready();
    // The heartbeat is a minute here: a switch seen well before it came from the notification.
    await release('20261126.110000000-bbbbbbbb', 'second copy');
    await until(() => following.status().live.vendor === '20261126.110000000-bbbbbbbb', 20_000);
  });

  it('reads the table again when its connection comes back, so a switch made meanwhile is not missed', async () => {
    const { following } = follow();
    await following.ready();
    const admin = new pg.Client(databaseUrl);
    await admin.connect();
    const { rowCount } = await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() and application_name = 'site-releases'",
    );
    await admin.end();
    expect(rowCount).toBe(1);
    await release('20261126.120000000-cccccccc', 'third copy');
    await until(() => following.status().live.vendor === '20261126.120000000-cccccccc');
    expect(log.warn).toHaveBeenCalled();
  });

  it('refuses a version with a file that differs from the release, names the file, and keeps the one before', async () => {
    const { following } = follow();
    await following.ready();
    const before = following.status().live.vendor;
    const version = '20261126.130000000-dddddddd';
    const dir = writeBuild(origin, version, 'fourth copy');
    await ledger.published('vendor', version, filesOf(dir));
    writeFileSync(join(dir, 'ssr', 'vendor-page.js'), 'export default "not what was released";');
    await ledger.switchTo('vendor', version, [{ version, event: { event: 'live', how: 'promote' } }]);

    await until(() => following.status().behind !== undefined);
    expect(following.status()).toMatchObject({ ok: false, live: { vendor: before } });
    expect((await following.read()).vendor).toContain(`/vendor/${before}/`);
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ remote: 'vendor', version, file: 'ssr/vendor-page.js' }),
      expect.stringContaining('ssr/vendor-page.js'),
    );
    // The version before goes live again: the server is whole again.
    await ledger.switchTo('vendor', before!, [{ version: before!, event: { event: 'live', how: 'rollback' } }]);
    await until(() => following.status().ok);
  });

  it('finds a browser file the CDN serves unlike its release, logs it and says degraded, while it serves the version', async () => {
    const { following } = follow();
    await following.ready();
    const version = '20261126.140000000-eeeeeeee';
    const dir = writeBuild(origin, version, 'fifth copy');
    await ledger.published('vendor', version, filesOf(dir));
    // Changed on the CDN after its release: a chunk browsers load, which no page names with its integrity.
    writeFileSync(join(dir, 'assets', 'page.js'), 'console.log("not what was released");');
    await ledger.switchTo('vendor', version, [{ version, event: { event: 'live', how: 'promote' } }]);
    await until(() => following.status().live.vendor === version);
    await until(() => !following.status().ok);
    expect(following.status()).toMatchObject({
      problem: 'the CDN serves files of a live version unlike its release',
      cdnDiffers: { [`vendor/${version}`]: ['assets/page.js'] },
    });
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ build: `vendor/${version}`, file: 'assets/page.js' }),
      expect.stringContaining('unlike its release'),
    );
    await ledger.switchTo('vendor', '20261126.100000000-aaaaaaaa', [
      { version: '20261126.100000000-aaaaaaaa', event: { event: 'live', how: 'rollback' } },
    ]);
    await until(() => following.status().ok);
  });

  it('ignores and logs a row whose version is a path, writing nothing outside its cache', async () => {
    const { following, cacheDir } = follow();
    await following.ready();
    const before = following.status().live.vendor;
    const outside = mkdtempSync(join(tmpdir(), 'escape-target-'));
    const escape = `../../../../../../..${outside}/escape`;
    // A row written by hand (or by someone with the database's password), not by pnpm release.
    await db
      .insertInto('site_releases')
      .values({
        remote: 'vendor',
        version: escape,
        entry: `${server.url}vendor/${escape}/remoteEntry.js`,
        files: JSON.stringify({ 'mf-manifest.json': 'x' }),
        verdict: null,
        published_by: 'someone',
        published_at: new Date().toISOString(),
        live: false,
        switched_at: null,
      })
      .execute();
    await ledger.switchTo('vendor', escape, [{ version: escape, event: { event: 'live', how: 'promote' } }]);
    await until(() => following.status().behind !== undefined);
    expect(following.status()).toMatchObject({ ok: false, live: { vendor: before } });
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ remote: 'vendor', version: escape }),
      expect.stringContaining('is not a version name'),
    );
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(join(cacheDir, 'vendor')).every((name) => !name.includes('escape'))).toBe(true);
    await ledger.switchTo('vendor', before!, [{ version: before!, event: { event: 'live', how: 'rollback' } }]);
    await until(() => following.status().ok);
  });

  it('with builds on disk, keeps the version it can serve while the live one has no files here, then takes it', async () => {
    log = logger();
    following = databaseReleases({ databaseUrl, log: log as never, remotesDir: origin, heartbeatMs: 200 });
    await following.ready();
    const before = following.status().live.vendor;
    const absent = '20261126.135000000-0a0a0a0a';
    const files = filesOf(writeBuild(origin, absent, 'not here yet'));
    rmSync(join(origin, 'vendor', absent), { recursive: true });
    await ledger.published('vendor', absent, files);
    await ledger.switchTo('vendor', absent, [{ version: absent, event: { event: 'live', how: 'promote' } }]);
    await until(() => following!.status().ok === false, 5_000);
    expect(following.status()).toMatchObject({
      live: { vendor: before },
      behind: { vendor: `${absent}: vendor/${absent}/remoteEntry.js: is not in REMOTES_DIR on this server` },
    });
    expect((await following.read()).vendor).toBe(
      `/remotes/vendor/${before}/remoteEntry.js`.replace('/remotes/', server.url),
    );
    writeBuild(origin, absent, 'here now');
    await until(() => following!.status().live.vendor === absent, 5_000);
    expect(following.status().ok).toBe(true);
  });

  it('splits visitors by a rollout within a second of its commit, with the canary’s build fetched, and ends it once', async () => {
    const { following, cacheDir } = follow();
    await following.ready();
    const current = (await ledger.liveVersion('vendor'))!;
    const canary = '20261126.150000000-ffffffff';
    await ledger.published('vendor', canary, filesOf(writeBuild(origin, canary, 'canary copy')));
    const now = new Date().toISOString();
    const rollout = {
      remote: 'vendor' as const,
      version: canary,
      entry: `${server.url}vendor/${canary}/remoteEntry.js`,
      current,
      stages: [25, 100],
      stage: 0,
      stageMinutes: 10,
      stageSince: now,
      pausedMs: 0,
      startedAt: now,
      startedBy: 'ops',
    };
    await ledger.changeRollout('vendor', (under) => (under ? undefined : rollout), [
      { version: canary, event: { event: 'rollout-started', current, stages: [25, 100], stageMinutes: 10 } },
    ]);
    // From the notification: the heartbeat is a minute here.
    await until(() => following.splits().vendor?.share === 25, 20_000);
    expect(following.splits().vendor).toEqual({
      id: `vendor/${canary}/${now}`,
      version: canary,
      entry: rollout.entry,
      share: 25,
      stage: 1,
    });
    expect(existsSync(join(cacheDir, 'vendor', canary, 'ssr', 'vendor-page.js'))).toBe(true);

    // Two servers completing it at once: one switch, one event, the rollout gone.
    const other = postgresLedger(db, server.url);
    const completions = await Promise.all(
      [ledger, other].map((each) =>
        each.switchTo(
          'vendor',
          canary,
          [{ version: canary, event: { event: 'live', how: 'rollout' } }],
          current,
          rollout,
        ),
      ),
    );
    expect(completions.filter(Boolean)).toHaveLength(1);
    expect(await ledger.rollouts()).toEqual({});
    expect(
      (await ledger.records('vendor')).filter((record) => record.event === 'live' && record.how === 'rollout'),
    ).toHaveLength(1);
    await until(() => following.status().live.vendor === canary && !following.splits().vendor, 1_000);
  });
});

describe.skipIf(!postgres)('the cache of server builds', () => {
  it('keeps within its size, the least recently used versions out first, never a live one', async () => {
    const origin = mkdtempSync(join(tmpdir(), 'cdn-origin-'));
    const server = await cdn(origin);
    const files = Object.fromEntries(
      ['v1', 'v2', 'v3', 'v4'].map((version) => [version, filesOf(writeBuild(origin, version, version, 1000))]),
    );
    const dir = mkdtempSync(join(tmpdir(), 'site-cache-'));
    const log = logger();
    // About 1.1 KB of server files per version: room for two.
    const cache = buildCache({ dir, baseUrl: server.url, maxBytes: 2300, log: log as unknown as FastifyBaseLogger });
    const ensure = (version: string, live: string[]) =>
      cache.ensure('vendor', version, async () => Object.fromEntries(files[version]!), live);
    try {
      await ensure('v1', ['vendor/v1']);
      await ensure('v2', ['vendor/v1']);
      expect(cache.held()).toEqual(['vendor/v1', 'vendor/v2']);
      // v1 stays live: v2 is the least recently used of the others.
      await ensure('v3', ['vendor/v1']);
      expect(cache.held()).toEqual(['vendor/v1', 'vendor/v3']);
      // Live versions larger than the cache are kept all the same, and it says so.
      await ensure('v4', ['vendor/v1', 'vendor/v3']);
      expect(cache.held()).toEqual(['vendor/v1', 'vendor/v3', 'vendor/v4']);
      expect(log.warn).toHaveBeenCalledWith(expect.anything(), expect.stringContaining('REMOTES_CACHE_MB'));
      expect(existsSync(join(dir, 'vendor', 'v2'))).toBe(false);
    } finally {
      server.close();
    }
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { openMigratedDatabase } from 'api';
import { postgresDatabaseUrl, postgresServer } from 'api/test/databases';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { remotes } from '@gift/federation';
import { postgresLedger } from '../ledger/ledger.ts';
import { ledgerOf, thisMachine, watchRollback } from '../ledger/switches.ts';
import {
  ReleaseError,
  liveVersion,
  promote,
  publishCandidate,
  release,
  releases,
  remoteNamed,
  rollback,
  versionsOf,
  switchManifest,
  type ReleaseSettings,
} from './release.ts';

const postgres = await postgresServer();
afterAll(() => postgres?.stop());

/** A workspace with a built vendor remote, and an empty deploy folder and manifest. */
function workspace(buildScript = 'exit 0'): ReleaseSettings & { build: (text: string) => void } {
  const root = mkdtempSync(join(tmpdir(), 'release-'));
  writeFileSync(join(root, 'pnpm-workspace.yaml'), "packages:\n  - 'vendor'\n");
  writeFileSync(join(root, 'package.json'), '{ "name": "root", "private": true }');
  mkdirSync(join(root, 'vendor', 'dist', 'assets'), { recursive: true });
  writeFileSync(
    join(root, 'vendor', 'package.json'),
    JSON.stringify({ name: 'vendor', private: true, scripts: { build: buildScript } }),
  );
  const build = (text: string) => {
    writeFileSync(join(root, 'vendor', 'dist', 'remoteEntry.js'), `export const copy = ${JSON.stringify(text)};`);
    writeFileSync(join(root, 'vendor', 'dist', 'assets', 'page.js'), text);
  };
  build('first');
  return { root, remotesDir: join(root, 'deployed'), manifestFile: join(root, 'remotes.json'), build };
}

/** These tests are about versions and the manifest: the checks (a real shell and Chromium) are the e2e tests'. */
const unchecked = { prebuilt: true, force: { reason: 'unit test' } };

const manifestOf = (settings: ReleaseSettings) => JSON.parse(readFileSync(settings.manifestFile, 'utf8'));

describe('releasing a remote', () => {
  it('publishes each build as a version of its own and points the manifest at it, keeping the others', async () => {
    const settings = workspace();
    writeFileSync(settings.manifestFile, JSON.stringify({ legal: '/remotes/legal/v1/remoteEntry.js' }));
    const first = await release(settings, 'vendor', unchecked);
    settings.build('second');
    const second = await release(settings, 'vendor', unchecked);

    expect(first.from).toBeUndefined();
    expect(second.from).toBe(first.to);
    // The entry, the page, and the integrity of both (integrity.json).
    expect(second.changes).toBe('3 files: 0 new, 3 changed, 0 gone, 0 the same');
    expect(manifestOf(settings)).toEqual({
      legal: '/remotes/legal/v1/remoteEntry.js',
      vendor: `/remotes/vendor/${second.to}/remoteEntry.js`,
    });
    expect(readFileSync(join(settings.remotesDir, 'vendor', first.to, 'assets', 'page.js'), 'utf8')).toBe('first');
    expect(await releases(settings, 'vendor')).toMatchObject([
      { version: first.to, live: false, verdict: expect.stringMatching(/^forced: unit test \(\S+, \d{4}-/) },
      { version: second.to, live: true, verdict: expect.stringMatching(/^forced: unit test/) },
    ]);
  });

  it('rolls back to the version before the live one, or to the one named, and refuses what is not there', async () => {
    const settings = { ...workspace(), remotesBaseUrl: 'https://cdn.example/remotes/' };
    const first = await release(settings, 'vendor', unchecked);
    settings.build('second');
    const second = await release(settings, 'vendor', unchecked);

    const back = await rollback(settings, 'vendor');
    expect(back.to).toBe(first.to);
    expect(manifestOf(settings).vendor).toBe(`https://cdn.example/remotes/vendor/${first.to}/remoteEntry.js`);
    // The version live before the live one is the second again: a rollback of a rollback undoes it.
    expect((await rollback(settings, 'vendor')).to).toBe(second.to);
    expect((await rollback(settings, 'vendor', first.to)).to).toBe(first.to);
    await expect(rollback(settings, 'vendor', '2020')).rejects.toThrow('vendor has no version 2020. Its versions:');
  });

  it('refuses to publish a build with a symbolic link or a special file, naming it, and publishes nothing', async () => {
    const settings = workspace();
    const build = mkdtempSync(join(tmpdir(), 'linked-build-'));
    writeFileSync(join(build, 'remoteEntry.js'), 'export const copy = "linked";');
    symlinkSync('/etc/passwd', join(build, 'passwd.txt'));
    await expect(release(settings, 'vendor', { ...unchecked, prebuilt: false, from: build })).rejects.toThrow(
      '"passwd.txt" is a symbolic link; a build holds plain files and folders only. Nothing was published.',
    );
    rmSync(join(build, 'passwd.txt'));
    execFileSync('mkfifo', [join(build, 'pipe')]);
    await expect(release(settings, 'vendor', { ...unchecked, prebuilt: false, from: build })).rejects.toThrow(
      '"pipe" is not a plain file or folder',
    );
    expect(existsSync(join(settings.remotesDir, 'vendor'))).toBe(true);
    expect(readdirSync(join(settings.remotesDir, 'vendor')).filter((name) => !name.startsWith('.'))).toEqual([]);
  });

  it('refuses, before copying anything, a file or a build heavier than the site servers fetch, and bidi names', async () => {
    const settings = { ...workspace(), limits: { maxFileBytes: 1024 * 1024, maxVersionBytes: 3 * 1024 * 1024 } };
    const build = mkdtempSync(join(tmpdir(), 'heavy-build-'));
    writeFileSync(join(build, 'remoteEntry.js'), 'export const copy = "heavy";');
    // Sparse: as large as it says, without the disk.
    const sparse = (name: string, bytes: number) => execFileSync('truncate', ['-s', String(bytes), join(build, name)]);
    sparse('video.mp4', 2_300 * 1024 * 1024);
    await expect(release(settings, 'vendor', { ...unchecked, prebuilt: false, from: build })).rejects.toThrow(
      '"video.mp4" is 2300.0 MiB, over the 1.0 MiB a file may be (REMOTES_FETCH_MAX_FILE_MB',
    );
    rmSync(join(build, 'video.mp4'));
    for (const name of ['a.js', 'b.js', 'c.js', 'd.js']) sparse(name, 1024 * 1024);
    await expect(release(settings, 'vendor', { ...unchecked, prebuilt: false, from: build })).rejects.toThrow(
      'the build is over the 3.0 MiB a build may be (REMOTES_FETCH_MAX_VERSION_MB',
    );
    for (const name of ['a.js', 'b.js', 'c.js', 'd.js']) rmSync(join(build, name));
    writeFileSync(join(build, 'invoice\u202Egnp.js'), 'export {};');
    await expect(release(settings, 'vendor', { ...unchecked, prebuilt: false, from: build })).rejects.toThrow(
      'has a control character, a bidirectional control or a backslash in its name',
    );
    expect(readdirSync(join(settings.remotesDir, 'vendor')).filter((name) => !name.startsWith('.'))).toEqual([]);
  });

  it('names the remotes when one is unknown', () => {
    expect(() => remoteNamed('vendeur')).toThrow(
      `There is no remote called "vendeur". The remotes: ${Object.values(remotes)
        .map((remote) => remote.folder)
        .join(', ')}.`,
    );
    expect(remoteNamed('share-location')).toBe('share_location');
  });

  it('builds the remote into the new version, leaving the workspace’s own build as it was', async () => {
    const settings = workspace(
      'mkdir -p "$RELEASE_OUT_DIR" && echo "export const built = 1;" > "$RELEASE_OUT_DIR/remoteEntry.js"',
    );
    const { to } = await release(settings, 'vendor', { force: { reason: 'unit test' } });
    expect(readFileSync(join(settings.remotesDir, 'vendor', to, 'remoteEntry.js'), 'utf8')).toBe(
      'export const built = 1;\n',
    );
    expect(readFileSync(join(settings.root, 'vendor', 'dist', 'remoteEntry.js'), 'utf8')).toContain('first');
  }, 30_000);

  it('publishes nothing and leaves the manifest as it was when the build fails', async () => {
    const settings = workspace('echo broken >&2; exit 3');
    writeFileSync(settings.manifestFile, '{ "vendor": "/remotes/vendor/v1/remoteEntry.js" }');
    const failed = release(settings, 'vendor', { force: { reason: 'unit test' } });
    await expect(failed).rejects.toThrow(ReleaseError);
    await expect(failed).rejects.toThrow(/^The vendor build failed \(exit \d+\): nothing was published\.$/);
    expect(manifestOf(settings)).toEqual({ vendor: '/remotes/vendor/v1/remoteEntry.js' });
    expect(readdirSync(join(settings.remotesDir, 'vendor')).filter((name) => !name.startsWith('.'))).toEqual([]);
  }, 30_000);

  it('takes over at once the lock of a release killed midway, and removes the folder it was copying in', async () => {
    const settings = workspace();
    const folder = join(settings.remotesDir, 'vendor');
    mkdirSync(join(folder, '.release.lock'), { recursive: true });
    // A release that was killed: its process is gone, its lock and half-copied build are left.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(folder, '.release.lock.holder'), `${thisMachine()} ${gone}`);
    mkdirSync(join(folder, `.incoming-${gone}-1`, 'assets'), { recursive: true });
    writeFileSync(join(folder, `.incoming-${gone}-1`, 'assets', 'half.js'), 'export const half');
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const said: string[] = [];
    const started = performance.now();
    await release(settings, 'vendor', { ...unchecked, log: (line) => said.push(line) });
    // Not after the lock goes stale (a minute without updates): at once.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(String(warned.mock.calls[0]?.[0])).toBe(
      `Took over vendor's release lock from a release that is gone (${thisMachine()} ${gone}).`,
    );
    warned.mockRestore();
    expect(said).toContain(`Removed .incoming-${gone}-1, left by a release that was stopped midway.`);
    expect(readdirSync(folder).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('shows a release stopped mid-checks as interrupted, and one whose checks run as under way', async () => {
    const settings = workspace();
    const { to } = await release(settings, 'vendor', unchecked);
    // Published, checks begun, then the process was killed: no verdict follows.
    const ledger = ledgerOf(settings);
    await ledger.record('vendor', to, { event: 'checks-started' });
    const historyOfTo = async () => (await releases(settings, 'vendor')).find((entry) => entry.version === to)!;
    expect((await historyOfTo()).history.at(-1)).toMatch(
      /^interrupted: its checks began \(.+ UTC\) and never ended; release or promote it again$/,
    );
    // While a release holds the lock (this process, alive), the same record reads as checks under way.
    const folder = join(settings.remotesDir, 'vendor');
    mkdirSync(join(folder, '.release.lock'));
    writeFileSync(join(folder, '.release.lock.holder'), `${thisMachine()} ${process.pid}`);
    expect((await historyOfTo()).history.at(-1)).toMatch(/^checks under way \(began .+ UTC\)$/);
    rmSync(join(folder, '.release.lock'), { recursive: true });
    rmSync(join(folder, '.release.lock.holder'));
    // Checked again to the end: nothing left unfinished.
    await ledger.record('vendor', to, { event: 'checks-started' });
    await ledger.record('vendor', to, { event: 'passed', seconds: 12 });
    expect((await historyOfTo()).history.join('; ')).not.toMatch(/interrupted|under way/);
  });

  it('waits for the lock of a release that is still running', async () => {
    const settings = workspace();
    const folder = join(settings.remotesDir, 'vendor');
    mkdirSync(join(folder, '.release.lock'), { recursive: true });
    writeFileSync(join(folder, '.release.lock.holder'), `${thisMachine()} ${process.pid}`);
    const waiting = release(settings, 'vendor', unchecked);
    let done = false;
    void waiting.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(done).toBe(false);
    rmSync(join(folder, '.release.lock'), { recursive: true });
    await waiting;
  });

  it('two releases of the same remote at once both publish, one after the other, and the manifest stays whole', async () => {
    const settings = workspace();
    const [a, b] = await Promise.all([release(settings, 'vendor', unchecked), release(settings, 'vendor', unchecked)]);
    expect(new Set([a.from, b.from])).toEqual(new Set([undefined, [a.to, b.to].sort()[0]]));
    expect((await releases(settings, 'vendor')).map((entry) => entry.live)).toEqual([false, true]);
  });
});

describe('switching the manifest', () => {
  it('loses no change when many switch it at once, and a reader never sees half a file', async () => {
    const settings = workspace();
    const names = Array.from({ length: 12 }, (_, index) => `remote${index}`);
    let reading = true;
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        try {
          JSON.parse(readFileSync(settings.manifestFile, 'utf8'));
          reads += 1;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await Promise.all(
      names.map((name) =>
        switchManifest(settings.manifestFile, (manifest) => ({
          ...manifest,
          [name]: `/remotes/${name}/v1/remoteEntry.js`,
        })),
      ),
    );
    reading = false;
    await reader;
    expect(Object.keys(manifestOf(settings)).sort()).toEqual([...names].sort());
    expect(reads).toBeGreaterThan(0);
  }, 30_000);
});

describe.skipIf(!postgres)('releasing with PostgreSQL', () => {
  it('keeps versions, files, verdicts and what is live in its tables, and leaves no manifest file', async () => {
    const db = await openMigratedDatabase({ databaseUrl: await postgresDatabaseUrl(postgres!.url), dataDir: '' });
    try {
      const files = workspace();
      const settings = {
        ...files,
        remotesBaseUrl: 'https://cdn.example/remotes/',
        ledger: postgresLedger(db, 'https://cdn.example/remotes/'),
      };
      const first = await release(settings, 'vendor', unchecked);
      settings.build('second');
      const second = await release(settings, 'vendor', unchecked);
      expect(second.from).toBe(first.to);
      expect(await settings.ledger.manifest()).toEqual({
        vendor: `https://cdn.example/remotes/vendor/${second.to}/remoteEntry.js`,
      });
      expect(await releases(settings, 'vendor')).toMatchObject([
        { version: first.to, live: false, verdict: expect.stringMatching(/^forced: unit test/) },
        { version: second.to, live: true, verdict: expect.stringMatching(/^forced: unit test/) },
      ]);
      const row = await db
        .selectFrom('site_releases')
        .selectAll()
        .where('version', '=', second.to)
        .executeTakeFirstOrThrow();
      const sha = (text: string) => createHash('sha256').update(text).digest('hex');
      const integrity = (text: string) => `sha256-${createHash('sha256').update(text).digest('base64')}`;
      const integrityJson = `${JSON.stringify(
        { 'assets/page.js': integrity('second'), 'remoteEntry.js': integrity('export const copy = "second";') },
        null,
        1,
      )}\n`;
      expect(JSON.parse(row.files)).toEqual({
        'remoteEntry.js': sha('export const copy = "second";'),
        'assets/page.js': sha('second'),
        'integrity.json': sha(integrityJson),
      });
      expect(row.verdict).toMatch(/^forced: unit test/);

      // A watch that judged a version no longer live changes nothing: another server's watch, or a release, won.
      expect(await watchRollback(settings, 'vendor', { from: first.to, to: first.to, why: 'late' })).toBeUndefined();
      expect((await rollback(settings, 'vendor')).to).toBe(first.to);
      expect(await settings.ledger.liveVersion('vendor')).toBe(first.to);
      expect(existsSync(settings.manifestFile)).toBe(false);
    } finally {
      await db.destroy();
    }
  });
});

/** The rollback rules, with the manifest file and with PostgreSQL: the same ledger interface, the same answers. */
type OpenLedger = () => Promise<{ settings: ReturnType<typeof workspace>; close: () => Promise<void> }>;
const ledgers: [string, OpenLedger][] = [
  ['the manifest file', async () => ({ settings: workspace(), close: async () => {} })],
  ...(postgres
    ? ([
        [
          'PostgreSQL',
          async () => {
            const db = await openMigratedDatabase({
              databaseUrl: await postgresDatabaseUrl(postgres.url),
              dataDir: '',
            });
            return { settings: { ...workspace(), ledger: postgresLedger(db) }, close: () => db.destroy() };
          },
        ],
      ] satisfies [string, OpenLedger][])
    : []),
];

describe.each(ledgers)('a rollback, with %s', (_name, open) => {
  /** A candidate of vendor (built with `text`) that its checks refused, as `pnpm promote` records a refusal. */
  const refusedCandidate = async (settings: ReturnType<typeof workspace>, text: string) => {
    settings.build(text);
    const version = await publishCandidate(settings, 'vendor', { prebuilt: true });
    await ledgerOf(settings).record('vendor', version, {
      event: 'refused',
      why: 'browser 375 px: /vendor: console error: Error: vendor boom on mount',
    });
    return version;
  };

  it('goes back to the version live before, never to a refused one published between them', async () => {
    const { settings, close } = await open();
    try {
      const good = await release(settings, 'vendor', unchecked);
      const broken = await refusedCandidate(settings, 'broken');
      settings.build('better');
      const better = await release(settings, 'vendor', unchecked);
      expect(await versionsOf(settings, 'vendor')).toEqual([good.to, broken, better.to]);

      const back = await rollback(settings, 'vendor');
      expect(back).toMatchObject({ from: better.to, to: good.to });
      // Named, a refused version needs --force --reason, which is recorded.
      await expect(rollback(settings, 'vendor', broken)).rejects.toThrow(
        `vendor ${broken} may not go live: refused: browser 375 px`,
      );
      expect(await liveVersion(settings, 'vendor')).toBe(good.to);
      expect((await rollback(settings, 'vendor', broken, { force: { reason: 'hotfix test' } })).to).toBe(broken);
      expect((await releases(settings, 'vendor')).find((entry) => entry.version === broken)).toMatchObject({
        live: true,
        verdict: expect.stringMatching(/^refused: browser 375 px: .*; forced: hotfix test \(/),
      });
    } finally {
      await close();
    }
  });

  it('goes back from a candidate published before the live version and promoted after it', async () => {
    const { settings, close } = await open();
    try {
      const first = await release(settings, 'vendor', unchecked);
      settings.build('earlier candidate');
      const earlier = await publishCandidate(settings, 'vendor', { prebuilt: true });
      settings.build('later');
      const later = await release(settings, 'vendor', unchecked);
      await promote(settings, 'vendor', earlier, { force: { reason: 'unit test' } });
      expect(await liveVersion(settings, 'vendor')).toBe(earlier);

      expect(await rollback(settings, 'vendor')).toMatchObject({ from: earlier, to: later.to });
      expect(await rollback(settings, 'vendor')).toMatchObject({ from: later.to, to: earlier });
      expect(first.to < earlier && earlier < later.to).toBe(true);
    } finally {
      await close();
    }
  });

  it('passes over a version the release watch rolled back, and says so when nothing is left', async () => {
    const { settings, close } = await open();
    try {
      const first = await release(settings, 'vendor', unchecked);
      await expect(rollback(settings, 'vendor')).rejects.toThrow(
        `vendor has no version that was live before ${first.to} and may go live again`,
      );
      settings.build('second');
      const second = await release(settings, 'vendor', unchecked);
      await watchRollback(settings, 'vendor', { from: second.to, to: first.to, why: 'error rate 9.0%' });
      expect(await liveVersion(settings, 'vendor')).toBe(first.to);
      await expect(rollback(settings, 'vendor')).rejects.toThrow('may go live again');
    } finally {
      await close();
    }
  });
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { openMigratedDatabase } from 'api';
import { postgresDatabaseUrl, postgresServer } from 'api/test/databases';
import { afterAll, describe, expect, it } from 'vitest';
import { remotes } from '@gift/federation';
import { postgresLedger } from './release-ledger.ts';
import {
  ReleaseError,
  release,
  releases,
  remoteNamed,
  rollback,
  switchManifest,
  watchRollback,
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
    expect(second.changes).toBe('2 files: 0 new, 2 changed, 0 gone, 0 the same');
    expect(manifestOf(settings)).toEqual({
      legal: '/remotes/legal/v1/remoteEntry.js',
      vendor: `/remotes/vendor/${second.to}/remoteEntry.js`,
    });
    expect(readFileSync(join(settings.remotesDir, 'vendor', first.to, 'assets', 'page.js'), 'utf8')).toBe('first');
    expect(await releases(settings, 'vendor')).toEqual([
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
    await expect(rollback(settings, 'vendor')).rejects.toThrow(`vendor has no version before ${first.to}`);
    expect((await rollback(settings, 'vendor', second.to)).to).toBe(second.to);
    await expect(rollback(settings, 'vendor', '2020')).rejects.toThrow('vendor has no version 2020. Its versions:');
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
      expect(await releases(settings, 'vendor')).toEqual([
        { version: first.to, live: false, verdict: expect.stringMatching(/^forced: unit test/) },
        { version: second.to, live: true, verdict: expect.stringMatching(/^forced: unit test/) },
      ]);
      const row = await db
        .selectFrom('site_releases')
        .selectAll()
        .where('version', '=', second.to)
        .executeTakeFirstOrThrow();
      const sha = (text: string) => createHash('sha256').update(text).digest('hex');
      expect(JSON.parse(row.files)).toEqual({
        'remoteEntry.js': sha('export const copy = "second";'),
        'assets/page.js': sha('second'),
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

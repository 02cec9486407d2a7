import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { knownVersions } from './known-versions.ts';

/** A version name as `pnpm release` makes it (releases/publish.ts), for a build published at `at`. */
const versionAt = (at: Date, hash = '3f9a0c1e') =>
  `${at.toISOString().replace(/[-:]/g, '').replace('T', '.').replace('Z', '')}-${hash}`;

describe('the versions field data may be about', () => {
  const now = Date.UTC(2026, 10, 26, 12);
  const remotesDir = mkdtempSync(join(tmpdir(), 'known-versions-'));
  const publish = (folder: string, version: string) => {
    mkdirSync(join(remotesDir, folder, version), { recursive: true });
    writeFileSync(join(remotesDir, folder, version, 'remoteEntry.js'), 'export {};');
    return version;
  };
  const live = publish('legal', versionAt(new Date(now - 30 * 86_400_000), 'aaaaaaaa'));
  const candidate = publish('legal', versionAt(new Date(now - 3_600_000)));
  const old = publish('legal', versionAt(new Date(now - 49 * 3_600_000), 'bbbbbbbb'));
  const known = knownVersions({
    readManifest: async () => ({
      legal: `/remotes/legal/${live}/remoteEntry.js`,
      vendor: '/vendor/remoteEntry.js?v=Bx12',
    }),
    remotesDir,
    now: () => now,
  });

  it('are the live ones, however old, and ones published here within 48 hours', async () => {
    expect(candidate).toMatch(/^\d{8}\.\d{6}\.\d{3}-3f9a0c1e$/);
    expect(await known('legal', live)).toBe(true);
    expect(await known('vendor', 'Bx12')).toBe(true);
    expect(await known('legal', candidate)).toBe(true);
  });

  it('are never one published longer ago, one not here, another remote’s, or a remote that does not exist', async () => {
    expect(await known('legal', old)).toBe(false);
    expect(await known('legal', versionAt(new Date(now - 60_000), 'cccccccc'))).toBe(false);
    expect(await known('vendor', live)).toBe(false);
    expect(await known('nosuch', live)).toBe(false);
    expect(await known('legal', '../../etc')).toBe(false);
  });
});

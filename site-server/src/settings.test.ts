import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SettingsError } from 'api/settings';
import { siteSettings } from './settings.ts';

const root = '/srv/site';
const mb = 1024 * 1024;

describe('the site server’s settings', () => {
  it('reads the CDN cache’s limits in megabytes, by default and as given', () => {
    expect(siteSettings({}, root).cache).toEqual({
      maxBytes: 200 * mb,
      maxFileBytes: 16 * mb,
      maxVersionBytes: 64 * mb,
    });
    expect(siteSettings({ REMOTES_FETCH_MAX_FILE_MB: '2' }, root).cache.maxFileBytes).toBe(2 * mb);
  });

  it('stops on a value that is not what it should be, saying which and why', () => {
    expect(() => siteSettings({ REMOTES_CACHE_MB: '0' }, root)).toThrow(
      'REMOTES_CACHE_MB must be a whole number of megabytes above 0, not "0".',
    );
    expect(() => siteSettings({ RELEASE_WATCH_MINUTES: 'soon' }, root)).toThrow(
      'RELEASE_WATCH_MINUTES must be a whole number of minutes (0 turns it off), not "soon".',
    );
    expect(() =>
      siteSettings({ DATABASE_URL: 'postgres://db/site', REMOTES_DIR: '/r', REMOTES_MANIFEST: '/m.json' }, root),
    ).toThrow('REMOTES_MANIFEST is for a site without PostgreSQL');
  });

  it('names every wrong setting, its own and the API’s, in one refusal', () => {
    let refusal: unknown;
    try {
      siteSettings(
        {
          PORT: 'abc',
          PUBLIC_SITE_URL: 'notaurl',
          PREVIEW_SECRET: 'short',
          HEALTH_TOKEN: 'x',
          REMOTES_BASE_URL: 'https://',
          DATA_DIR: '/proc/nope',
        },
        root,
        { server: true },
      );
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(SettingsError);
    expect((refusal as SettingsError).problems).toEqual([
      'PORT must be a port from 1 to 65535, not "abc".',
      'DATA_DIR "/proc/nope" cannot be made or written by this user (ENOENT).',
      'PUBLIC_SITE_URL must be an http(s) address such as https://gifts.example, not "notaurl".',
      'REMOTES_BASE_URL must be an http(s) address such as https://gifts.example, not "https://".',
      'PREVIEW_SECRET must be at least 32 characters long (openssl rand -hex 32).',
      'HEALTH_TOKEN must be at least 32 characters long (openssl rand -hex 32).',
    ]);
    expect(() => siteSettings({ PORT: '99999' }, root)).toThrow('PORT must be a port from 1 to 65535, not "99999".');
  });

  it('fetches builds from a CDN into the data folder when it follows PostgreSQL', () => {
    const settings = siteSettings(
      { DATABASE_URL: 'postgres://db/site', REMOTES_BASE_URL: 'https://cdn.example/remotes/', DATA_DIR: '/data' },
      root,
    );
    expect(settings).toMatchObject({ followsDatabase: true, fromCdn: true, remotesDir: '/data/remotes' });
    expect(siteSettings({ REMOTES_DIR: '/r', REMOTES_MANIFEST: '/m.json' }, root)).toMatchObject({
      followsDatabase: false,
      remotesDir: '/r',
      manifestFile: '/m.json',
    });
  });
});

const root_ = fileURLToPath(new URL('../..', import.meta.url));

/** An env file of ops/systemd as systemd reads it (NAME=value lines), with its empty secrets filled. */
function envFile(name: string): NodeJS.ProcessEnv {
  const text = readFileSync(join(root_, 'ops', 'systemd', name), 'utf8');
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'production' };
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line);
    if (match) env[match[1]!] = match[2] || randomBytes(32).toString('hex');
  }
  return env;
}

describe('the units and env files of ops/systemd', () => {
  it('start files that are there, and their env files are whole production settings once the secrets are filled', () => {
    for (const [unit, env] of [
      ['giftwell-site.service', 'site.env'],
      ['giftwell-api.service', 'api.env'],
    ] as const) {
      const text = readFileSync(join(root_, 'ops', 'systemd', unit), 'utf8');
      const [, script] = /^ExecStart=\/usr\/bin\/node (\S+)$/m.exec(text)!;
      expect(existsSync(join(root_, script!)), `${unit} starts ${script}`).toBe(true);
      expect(text).toContain(`EnvironmentFile=/etc/giftwell/${env}`);
      const settings = siteSettings(envFile(env), root_);
      expect(settings.config.databaseUrl).toMatch(/^postgres:/);
      expect(settings.config.siteUrl).toBe('https://giftwell.example');
    }
    expect(siteSettings(envFile('site.env'), root_)).toMatchObject({ followsDatabase: true, fromCdn: true });
  });
});

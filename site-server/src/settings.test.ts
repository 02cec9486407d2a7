import { describe, expect, it } from 'vitest';
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

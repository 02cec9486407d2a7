import { hostname } from 'node:os';
import { join } from 'node:path';
import { readConfig } from 'api/commands';
import { httpAddress, port as portOf, secret, settingsReader } from 'api/settings';
import { siteRoleOf } from './previews/overrides.ts';
import { defaultSiteHosts } from './http/site-origin.ts';
import { buildLimits, megabytes } from './ledger/build-limits.ts';

/** The site server's settings, read from its environment once at start; a wrong value stops it with a clear message. */

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** A whole number of minutes, 0 or more, or the default; anything else stops the server with a clear message. */
function minutes(env: NodeJS.ProcessEnv, name: string, fallback: number) {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value))
    throw new Error(`${name} must be a whole number of minutes (0 turns it off), not "${value}".`);
  return Number(value);
}

/**
 * The site server's settings and the API's it mounts, every wrong one named at once. `server`: the server starts with
 * them (its data folder must be usable); the commands that read them do not.
 */
export function siteSettings(env: NodeJS.ProcessEnv, root: string, { server = false } = {}) {
  const settings = settingsReader();
  const port = settings.take(() => portOf(env, 'PORT', 4173), 4173);
  // This server among those sharing the database, the same after a restart: it takes back its own claims at once.
  const config = {
    ...readConfig(env, root, { reader: settings, server }),
    ...(env.INSTANCE_NAME ? {} : { instanceName: `${hostname()}:${port}` }),
  };
  const { REMOTES_DIR, REMOTES_MANIFEST, REMOTES_BASE_URL } = env;
  // Deployed remotes with PostgreSQL: the releases live in its tables, which every site server follows; a CDN's
  // REMOTES_BASE_URL is where this server fetches the server builds it lacks, into REMOTES_DIR (by default its data
  // folder's `remotes/`).
  const followsDatabase = Boolean(config.databaseUrl && (REMOTES_DIR || REMOTES_BASE_URL));
  if (followsDatabase && REMOTES_MANIFEST) {
    settings.take(() => {
      throw new Error(
        'REMOTES_MANIFEST is for a site without PostgreSQL: with DATABASE_URL the releases live in the database ' +
          '(pnpm releases, pnpm promote and pnpm rollback with the same DATABASE_URL). Unset one of them.',
      );
    }, undefined);
  }
  const fromCdn = /^https?:\/\//.test(REMOTES_BASE_URL ?? '');
  if (fromCdn) settings.take(() => httpAddress(env, 'REMOTES_BASE_URL'), undefined);
  const read = {
    root,
    port,
    host: env.HOST ?? '127.0.0.1',
    /** The API's settings (its database, secrets, proxies, limits). */
    config,
    followsDatabase,
    fromCdn,
    remotesDir: followsDatabase && fromCdn ? (REMOTES_DIR ?? join(config.dataDir, 'remotes')) : REMOTES_DIR,
    manifestFile: REMOTES_MANIFEST,
    remotesBaseUrl: REMOTES_BASE_URL,
    cache: {
      maxBytes: settings.take(() => megabytes(env, 'REMOTES_CACHE_MB', 200), 200),
      ...settings.take(() => buildLimits(env), { maxFileBytes: 0, maxVersionBytes: 0 }),
    },
    remoteOrigins: list(env.REMOTE_ORIGINS),
    siteUrl: env.PUBLIC_SITE_URL,
    siteHosts: env.SITE_HOSTS ? [...defaultSiteHosts, ...list(env.SITE_HOSTS)] : undefined,
    previewSecret: settings.take(() => secret(env, 'PREVIEW_SECRET'), undefined),
    siteRole: settings.take(() => siteRoleOf(env), 'production'),
    healthToken: settings.take(() => secret(env, 'HEALTH_TOKEN'), undefined),
    watch: {
      /** RELEASE_WATCH_MINUTES: how long after a promote a version is watched; 0 turns the watch off. */
      minutes: settings.take(() => minutes(env, 'RELEASE_WATCH_MINUTES', 15), 15),
      intervalMs: settings.take(() => wholeMs(env, 'RELEASE_WATCH_INTERVAL_MS', 30_000), 30_000),
    },
    logLevel: env.LOG_LEVEL ?? 'info',
  };
  settings.done();
  return read;
}

/** Milliseconds above 0, or the default. */
function wholeMs(env: NodeJS.ProcessEnv, name: string, fallback: number) {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^[1-9]\d*$/.test(value))
    throw new Error(`${name} must be a whole number of milliseconds above 0, not "${value}"`);
  return Number(value);
}

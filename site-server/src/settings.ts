import { hostname } from 'node:os';
import { join } from 'node:path';
import { readConfig } from 'api/commands';
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

export function siteSettings(env: NodeJS.ProcessEnv, root: string) {
  const port = Number(env.PORT ?? 4173);
  // This server among those sharing the database, the same after a restart: it takes back its own claims at once.
  const config = { ...readConfig(env, root), ...(env.INSTANCE_NAME ? {} : { instanceName: `${hostname()}:${port}` }) };
  const { REMOTES_DIR, REMOTES_MANIFEST, REMOTES_BASE_URL } = env;
  // Deployed remotes with PostgreSQL: the releases live in its tables, which every site server follows; a CDN's
  // REMOTES_BASE_URL is where this server fetches the server builds it lacks, into REMOTES_DIR (by default its data
  // folder's `remotes/`).
  const followsDatabase = Boolean(config.databaseUrl && (REMOTES_DIR || REMOTES_BASE_URL));
  if (followsDatabase && REMOTES_MANIFEST) {
    throw new Error(
      'REMOTES_MANIFEST is for a site without PostgreSQL: with DATABASE_URL the releases live in the database ' +
        '(pnpm releases, pnpm promote and pnpm rollback with the same DATABASE_URL). Unset one of them.',
    );
  }
  const fromCdn = /^https?:\/\//.test(REMOTES_BASE_URL ?? '');
  return {
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
      maxBytes: megabytes(env, 'REMOTES_CACHE_MB', 200),
      ...buildLimits(env),
    },
    remoteOrigins: list(env.REMOTE_ORIGINS),
    siteUrl: env.PUBLIC_SITE_URL,
    siteHosts: env.SITE_HOSTS ? [...defaultSiteHosts, ...list(env.SITE_HOSTS)] : undefined,
    previewSecret: env.PREVIEW_SECRET || undefined,
    siteRole: siteRoleOf(env),
    healthToken: env.HEALTH_TOKEN || undefined,
    watch: {
      /** RELEASE_WATCH_MINUTES: how long after a promote a version is watched; 0 turns the watch off. */
      minutes: minutes(env, 'RELEASE_WATCH_MINUTES', 15),
      intervalMs: Number(env.RELEASE_WATCH_INTERVAL_MS ?? 30_000),
    },
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}

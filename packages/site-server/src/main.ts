import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeOnSignal, databaseName, loggerOptions, openMigratedDatabase, readConfig } from 'api';
import { buildCache } from './build-cache.ts';
import { databaseReleases, type DatabaseReleases } from './database-releases.ts';
import { postgresLedger } from './release-ledger.ts';
import { startReleaseWatch } from './release-watch.ts';
import { siteRoleOf } from './overrides.ts';
import { createSiteServer, defaultSiteHosts } from './site-server.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const port = Number(process.env.PORT ?? 4173);
const host = process.env.HOST ?? '127.0.0.1';

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** A whole number of megabytes above 0, or the default; anything else stops the server with a clear message. */
function megabytes(name: string, fallback: number) {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^[1-9]\d*$/.test(value))
    throw new Error(`${name} must be a whole number of megabytes above 0, not "${value}".`);
  return Number(value);
}

const config = readConfig(process.env, root);
const logger = loggerOptions(process.env.LOG_LEVEL ?? 'info');
const { REMOTES_DIR, REMOTES_MANIFEST, REMOTES_BASE_URL } = process.env;

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
const cacheBytes = megabytes('REMOTES_CACHE_MB', 200) * 1024 * 1024;
const db = await openMigratedDatabase(config);
const fromCdn = /^https?:\/\//.test(REMOTES_BASE_URL ?? '');
const remotesDir = followsDatabase && fromCdn ? (REMOTES_DIR ?? join(config.dataDir, 'remotes')) : REMOTES_DIR;
let releases: DatabaseReleases | undefined;

const app = await createSiteServer({
  root,
  remotesDir,
  manifestFile: REMOTES_MANIFEST,
  releases: followsDatabase
    ? (log) =>
        (releases = databaseReleases({
          databaseUrl: config.databaseUrl!,
          log,
          cache: fromCdn
            ? buildCache({
                dir: remotesDir!,
                baseUrl: REMOTES_BASE_URL!,
                maxBytes: cacheBytes,
                maxFileBytes: megabytes('REMOTES_FETCH_MAX_FILE_MB', 16) * 1024 * 1024,
                maxVersionBytes: megabytes('REMOTES_FETCH_MAX_VERSION_MB', 64) * 1024 * 1024,
                log,
              })
            : undefined,
        }))
    : undefined,
  logger,
  trustProxy: config.trustProxy,
  remoteOrigins: list(process.env.REMOTE_ORIGINS),
  remotesBaseUrl: process.env.REMOTES_BASE_URL,
  api: { db, config },
  siteUrl: process.env.PUBLIC_SITE_URL,
  siteHosts: process.env.SITE_HOSTS ? [...defaultSiteHosts, ...list(process.env.SITE_HOSTS)] : undefined,
  previewSecret: process.env.PREVIEW_SECRET || undefined,
  siteRole: siteRoleOf(process.env),
  healthToken: process.env.HEALTH_TOKEN || undefined,
});

/** A whole number of minutes, 0 or more, or the default; anything else stops the server with a clear message. */
function minutes(name: string, fallback: number) {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value))
    throw new Error(`${name} must be a whole number of minutes (0 turns it off), not "${value}".`);
  return Number(value);
}

// The release watch (deployed remotes only): a promoted version that made things worse in the field is rolled back.
const watchMinutes = minutes('RELEASE_WATCH_MINUTES', 15);
if (remotesDir && (REMOTES_MANIFEST || followsDatabase) && watchMinutes > 0) {
  const stop = startReleaseWatch({
    settings: {
      root,
      remotesDir,
      manifestFile: REMOTES_MANIFEST ?? '',
      remotesBaseUrl: REMOTES_BASE_URL,
      ledger: followsDatabase ? postgresLedger(db, REMOTES_BASE_URL) : undefined,
    },
    db,
    log: app.log,
    minutes: watchMinutes,
    intervalMs: Number(process.env.RELEASE_WATCH_INTERVAL_MS ?? 30_000),
    webhooks: Boolean(config.webhookUrl),
  });
  app.addHook('onClose', async () => stop());
}

const following = releases as DatabaseReleases | undefined;
if (following) {
  app.addHook('onClose', () => following.close());
  // Listening only once the live builds are here: a balancer sends no visitor to a server that has nothing to show.
  const waiting = setTimeout(() => app.log.warn('still reading the releases from PostgreSQL'), 5_000);
  await following.ready();
  clearTimeout(waiting);
}

closeOnSignal(app, db);

await app.listen({ port, host });
console.log(`The site is running at http://${host}:${port} (data in ${databaseName(config)})`);

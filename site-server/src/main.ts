import { fileURLToPath } from 'node:url';
import { closeOnSignal, databaseName, loggerOptions, openDatabaseWhenReachable, settingsOrExit } from 'api';
import { postgresLedger } from './ledger/ledger.ts';
import { buildCache } from './remotes/build-cache.ts';
import { databaseReleases, type DatabaseReleases } from './remotes/database-releases.ts';
import { createSiteServer } from './server.ts';
import { siteSettings } from './settings.ts';
import { startReleaseWatch } from './watch/release-watch.ts';

/** The site server as it runs: settings from the environment, the database, the server, the release watch. */

const settings = settingsOrExit(
  () => siteSettings(process.env, fileURLToPath(new URL('../..', import.meta.url)), { server: true }),
  '/etc/giftwell/site.env',
);
const { root, config, remotesDir, manifestFile, remotesBaseUrl, followsDatabase } = settings;
// The database is reached and migrated in the background, tried again with backoff while it is away: pages are served
// meanwhile, and what needs the database answers 503 until then.
const { db, migrate, ready } = await openDatabaseWhenReachable(config);
let releases: DatabaseReleases | undefined;

const app = await createSiteServer({
  ...settings,
  releases: followsDatabase
    ? (log) =>
        (releases = databaseReleases({
          databaseUrl: config.databaseUrl!,
          log,
          cache: settings.fromCdn
            ? buildCache({ dir: remotesDir!, baseUrl: remotesBaseUrl!, ...settings.cache, log })
            : undefined,
          remotesDir,
        }))
    : undefined,
  logger: loggerOptions(settings.logLevel),
  trustProxy: config.trustProxy,
  api: { db, config, databaseReady: ready },
});

// The release watch (deployed remotes only): a promoted version that made things worse in the field is rolled back
// (for RELEASE_WATCH_MINUTES, unless 0), and each staged rollout is advanced or aborted by its cohorts' figures.
if (remotesDir && (manifestFile || followsDatabase)) {
  const stop = startReleaseWatch({
    settings: {
      root,
      remotesDir,
      manifestFile: manifestFile ?? '',
      remotesBaseUrl,
      ledger: followsDatabase ? postgresLedger(db, remotesBaseUrl) : undefined,
    },
    db,
    log: app.log,
    ...settings.watch,
    rule: config.releaseWatch,
    webhooks: Boolean(config.webhookUrl),
    databaseReady: ready,
  });
  app.addHook('onClose', async () => stop());
}

const following = releases as DatabaseReleases | undefined;
if (following) app.addHook('onClose', () => following.close());

closeOnSignal(app, db);

// Listening at once, whatever the database holds: until the releases are read (PostgreSQL away, or a database no
// server has migrated yet) /healthz answers 503 with the reason, and a page waits for the first read (5 s at most).
await app.listen({ port: settings.port, host: settings.host });
// One JSON line like every other (a supervisor's journal reads them all alike).
app.log.info(
  { url: `http://${settings.host}:${settings.port}`, data: databaseName(config) },
  `The site is running at http://${settings.host}:${settings.port} (data in ${databaseName(config)})`,
);
// Migrated here as by every other server that reaches the database first, under the migrations' lock.
await migrate(app.log);

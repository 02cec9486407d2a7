import { fileURLToPath } from 'node:url';
import { closeOnSignal, databaseName, loggerOptions, openMigratedDatabase, readConfig } from 'api';
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

const config = readConfig(process.env, root);
const db = await openMigratedDatabase(config);
const app = await createSiteServer({
  root,
  remotesDir: process.env.REMOTES_DIR,
  manifestFile: process.env.REMOTES_MANIFEST,
  logger: loggerOptions(process.env.LOG_LEVEL ?? 'info'),
  trustProxy: config.trustProxy,
  remoteOrigins: list(process.env.REMOTE_ORIGINS),
  remotesBaseUrl: process.env.REMOTES_BASE_URL,
  api: { db, config },
  siteUrl: process.env.PUBLIC_SITE_URL,
  siteHosts: process.env.SITE_HOSTS ? [...defaultSiteHosts, ...list(process.env.SITE_HOSTS)] : undefined,
  previewSecret: process.env.PREVIEW_SECRET || undefined,
  siteRole: siteRoleOf(process.env),
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
const { REMOTES_DIR, REMOTES_MANIFEST } = process.env;
if (REMOTES_DIR && REMOTES_MANIFEST && watchMinutes > 0) {
  const stop = startReleaseWatch({
    settings: {
      root,
      remotesDir: REMOTES_DIR,
      manifestFile: REMOTES_MANIFEST,
      remotesBaseUrl: process.env.REMOTES_BASE_URL,
    },
    db,
    log: app.log,
    minutes: watchMinutes,
    intervalMs: Number(process.env.RELEASE_WATCH_INTERVAL_MS ?? 30_000),
    webhooks: Boolean(config.webhookUrl),
  });
  app.addHook('onClose', async () => stop());
}

closeOnSignal(app, db);

await app.listen({ port, host });
console.log(`The site is running at http://${host}:${port} (data in ${databaseName(config)})`);

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeOnSignal, loggerOptions, openMigratedDatabase, readConfig } from 'api';
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
});

closeOnSignal(app, db);

await app.listen({ port, host });
console.log(
  `The site is running at http://${host}:${port} (requests stored in ${config.databaseUrl ? 'PostgreSQL' : join(config.dataDir, 'requests.sqlite')})`,
);

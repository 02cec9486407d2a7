import { createRemotesHost } from './remotes-host.ts';

/** `pnpm --filter site-server serve-remotes`: REMOTES_DIR on its own origin, for SITE_ORIGINS (comma-separated). */
const { REMOTES_DIR, SITE_ORIGINS, PORT = '4174', HOST = '127.0.0.1' } = process.env;
if (!REMOTES_DIR || !SITE_ORIGINS) {
  console.error('Set REMOTES_DIR (the deployed remotes) and SITE_ORIGINS (the origins of the site that loads them).');
  process.exit(1);
}
const app = await createRemotesHost({
  remotesDir: REMOTES_DIR,
  siteOrigins: SITE_ORIGINS.split(',').map((origin) => origin.trim()),
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close());
await app.listen({ port: Number(PORT), host: HOST });
console.log(`Remotes from ${REMOTES_DIR} at http://${HOST}:${PORT}/`);

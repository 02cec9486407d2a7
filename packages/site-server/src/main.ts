import { fileURLToPath } from 'node:url';
import { createSiteServer } from './site-server.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const port = Number(process.env.PORT ?? 4173);
const host = process.env.HOST ?? '127.0.0.1';

const app = await createSiteServer({
  root,
  remotesDir: process.env.REMOTES_DIR,
  manifestFile: process.env.REMOTES_MANIFEST,
  logger: { level: process.env.LOG_LEVEL ?? 'info' },
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.log.info(`${signal} received, closing`);
    void app.close().then(() => process.exit(0));
  });
}

await app.listen({ port, host });
console.log(`The site is running at http://${host}:${port}`);

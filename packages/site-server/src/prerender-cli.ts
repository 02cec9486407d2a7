import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RemotesManifest } from '@gift/federation';
import { prerenderSite } from './prerender.ts';
import { localManifest } from './builds.ts';

/** `pnpm prerender`: renders the pages again with the remote builds the manifest names now. */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const manifest: RemotesManifest = process.env.REMOTES_MANIFEST
  ? JSON.parse(readFileSync(process.env.REMOTES_MANIFEST, 'utf8'))
  : localManifest(root);
const started = performance.now();
const { index, skipped } = await prerenderSite({
  root,
  manifest,
  remotesDir: process.env.REMOTES_DIR,
  remotesBaseUrl: process.env.REMOTES_BASE_URL,
});
console.log(
  `Prerendered ${Object.keys(index).length} pages in ${Math.round(performance.now() - started)} ms` +
    (skipped.length ? `; left to the browser (remote not deployed here): ${skipped.join(', ')}` : ''),
);

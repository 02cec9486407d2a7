import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { counted } from 'api/words';
import type { RemotesManifest } from '@gift/federation';
import { prerenderSite } from './prerender.ts';
import { localManifest } from '../remotes/builds.ts';

/** `pnpm prerender`: renders the pages again with the remote builds the manifest names now. */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const manifestFile = process.env.REMOTES_MANIFEST;
// A deploy folder with nothing released yet: every page is rendered with its remote unavailable until one is.
const nothingReleased = manifestFile !== undefined && !existsSync(manifestFile);
if (nothingReleased) {
  console.log(
    `Nothing is released in ${manifestFile} yet: every page shows its part as unavailable. ` +
      'Release every remote\u2019s build there with pnpm release --all --prebuilt (docs/deploying-a-remote.md).',
  );
}
const manifest: RemotesManifest = manifestFile
  ? nothingReleased
    ? {}
    : JSON.parse(readFileSync(manifestFile, 'utf8'))
  : localManifest(root);
const started = performance.now();
const { index, skipped } = await prerenderSite({
  root,
  manifest,
  remotesDir: process.env.REMOTES_DIR,
  remotesBaseUrl: process.env.REMOTES_BASE_URL,
});
console.log(
  `Prerendered ${counted(Object.keys(index).length, 'page')} in ${Math.round(performance.now() - started)} ms` +
    (skipped.length ? `; left to the browser (remote not deployed here): ${skipped.join(', ')}` : ''),
);

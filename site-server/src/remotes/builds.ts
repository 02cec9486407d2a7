// remotes/: which build of each remote is live (a file, or PostgreSQL followed), its files, the CDN's cache of them.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { remoteEntryFile, remotes, type RemoteName, type RemotesManifest } from '@gift/federation';
import { manifestSource, rolloutSplits, type ManifestStatus } from './manifest-source.ts';
import type { Splits } from '../ledger/rollouts.ts';
import { watchedFile } from './watched-file.ts';

/** Where a server reads which build of each remote is live, and what its health check says of it. */
export interface ReleasesSource {
  read: () => Promise<RemotesManifest>;
  /** The staged rollouts under way: which share of visitors gets which canary (none when not given). */
  splits?: () => Splits;
  /** Brings a published version's server build here (a preview of a candidate), when builds come from a CDN. */
  fetchVersion?: (remote: RemoteName, version: string) => Promise<void>;
  status: () => ManifestStatus & { live?: Record<string, string>; lastHeardMs?: number };
  /** The release ledger's events by remote and kind (a source that reads PostgreSQL's ledger). */
  releaseEvents?: () => { remote: string; event: string; count: number }[];
  /** Resolves once the live versions were first read (a source that reads them later than its start). */
  ready?: () => Promise<void>;
}

const immutable = 'public, max-age=31536000, immutable';
export const revalidate = 'no-cache';

function setCacheHeaders(reply: FastifyReply, filePath: string) {
  // Vite puts content-hashed files under assets/; everything else (HTML, remoteEntry.js) must be revalidated.
  reply.header('Cache-Control', filePath.includes(`${sep}assets${sep}`) ? immutable : revalidate);
}

const contentVersion = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 10);

/**
 * Remotes built in this workspace, with the URL their entry is served at. The entry URL carries the build's
 * version, so a rebuilt remote has a new address and a page prerendered with the old one is not served.
 */
export function builtRemotes(root: string) {
  return Object.entries(remotes)
    .map(([name, remote]) => {
      const dist = join(root, remote.folder, 'dist');
      const version = watchedFile(join(dist, remoteEntryFile), contentVersion);
      return {
        name,
        dist,
        /** The build's content version: the same string object until its entry file changes. */
        version,
        entry: () => `/remotes/${remote.folder}/${remoteEntryFile}?v=${version()}`,
        prefix: `/remotes/${remote.folder}/`,
      };
    })
    .filter((remote) => existsSync(join(remote.dist, remoteEntryFile)));
}

/** The manifest that points at built remotes, as their builds are now. */
const manifestOf = (built: ReturnType<typeof builtRemotes>): RemotesManifest =>
  Object.fromEntries(built.map((remote) => [remote.name, remote.entry()]));

/**
 * The manifest of `built` as one object that stays the same until a build changes, so that what pages make from it
 * (the manifest's element, the kept compressed pages) is made once per build, not per request.
 */
function keptManifestOf(built: ReturnType<typeof builtRemotes>): () => RemotesManifest {
  let kept: { versions: (string | undefined)[]; manifest: RemotesManifest } | undefined;
  return () => {
    if (!kept || built.some((remote, i) => remote.version() !== kept!.versions[i])) {
      kept = { versions: built.map((remote) => remote.version()), manifest: manifestOf(built) };
    }
    return kept.manifest;
  };
}

/** The manifest of the remotes built in this workspace. */
export const localManifest = (root: string) => manifestOf(builtRemotes(root));

const realRoots = new Map<string, string>();
/**
 * Whether a build's file is served: never the server-side bundles used for prerendering, and never through a symbolic
 * link (in the file's path below the folder served, or as its Brotli copy): a link in a published build could
 * otherwise serve any file of this machine. Builds are refused with links when published; this covers older ones.
 */
function isServed(pathName: string, root: string | undefined) {
  if (/(^|\/)ssr\//.test(pathName)) return false;
  if (root === undefined) return true;
  if (!realRoots.has(root)) realRoots.set(root, existsSync(root) ? realpathSync(root) : root);
  const file = join(root, pathName);
  for (const candidate of [file, `${file}.br`]) {
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      continue; // not there: a 404, or no Brotli copy
    }
    if (real !== join(realRoots.get(root)!, pathName) + candidate.slice(file.length)) return false;
  }
  return true;
}

/** How build files are served, here and by the remotes' static host: cache headers, no server bundles, Brotli. */
export const staticOptions = {
  index: false,
  cacheControl: false,
  setHeaders: setCacheHeaders,
  allowedPath: isServed,
  // The builds write a Brotli copy of each text file (`file.js.br`); it is sent as is.
  preCompressed: true,
} as const;

/**
 * Serves the builds: the shell's at `/`, each remote's under `/remotes/` (from `remotesDir` when deployed there).
 * Returns the manifest: `manifestFile`'s, checked and kept in memory until the file changes (the last good one while
 * the file is unusable), or made from the workspace's builds as they are now.
 */
export async function serveBuilds(
  app: FastifyInstance,
  {
    root,
    remotesDir,
    manifestFile,
    releases,
  }: { root: string; remotesDir?: string; manifestFile?: string; releases?: ReleasesSource },
): Promise<ReleasesSource> {
  await app.register(fastifyStatic, { ...staticOptions, root: join(root, 'shell', 'dist'), prefix: '/' });

  // Builds fetched from a CDN for rendering are its server bundles alone: browsers load the rest from the CDN, and
  // the workspace's own builds are not watched.
  if (releases) return releases;
  const local = builtRemotes(root);
  if (remotesDir) {
    // A deploy folder where nothing is released yet: the releases will write here.
    mkdirSync(remotesDir, { recursive: true });
    await app.register(fastifyStatic, {
      ...staticOptions,
      root: remotesDir,
      prefix: '/remotes/',
      decorateReply: false,
    });
  } else {
    for (const remote of local) {
      await app.register(fastifyStatic, {
        ...staticOptions,
        root: remote.dist,
        prefix: remote.prefix,
        decorateReply: false,
      });
    }
  }

  if (manifestFile) return { ...manifestSource(manifestFile, app.log), splits: rolloutSplits(manifestFile) };
  const localNow = keptManifestOf(local);
  return { read: async () => localNow(), status: () => ({ ok: true, hasManifest: true }) };
}

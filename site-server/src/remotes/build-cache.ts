import { createHash } from 'node:crypto';
import { siteEvents } from '../metrics/events.ts';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { integrityFile, pageModulesFile, remotes, type RemoteName } from '@gift/federation';
import { isVersionName } from '../ledger/versions.ts';

/** A build's own stylesheet, as its federation manifest names it (`assets/<name>.css`): never a path out of it. */
export const isBuildStylesheet = (path: string) => /^assets\/[\w.-]+\.css$/.test(path);

/**
 * The files of a build that a site server renders with: its federation manifest, its server bundles, the integrity
 * of its browser files (which its pages name) and its stylesheets (which its pages carry).
 */
export const isServerFile = (path: string) =>
  path === 'mf-manifest.json' ||
  path === pageModulesFile ||
  path === integrityFile ||
  (path.startsWith('ssr/') && !/\.(br|gz)$/.test(path)) ||
  isBuildStylesheet(path);

/** A path inside a build as the ledger lists it: relative, `/`-separated, never leaving the build's folder. */
const isSafePath = (path: string) =>
  /^[\w@.-]+(\/[\w@.-]+)*$/.test(path) && !path.split('/').some((part) => part === '..' || part === '.');

/** Why a version's build was not taken, naming the file: the previous version keeps serving. */
export class RefusedBuild extends Error {
  /** Why, as a bounded word for the metrics: the CDN did not serve it, it differs from its release, too large, or not a build. */
  readonly reason: 'unreachable' | 'checksum' | 'too_large' | 'invalid';
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(`${file}: ${why}`);
    this.reason = /SHA-256/.test(why)
      ? 'checksum'
      : /bytes/.test(why)
        ? 'too_large'
        : /cannot be fetched|answered|redirect/.test(why)
          ? 'unreachable'
          : 'invalid';
  }
}

export interface BuildCacheOptions {
  /** This server's folder of builds (REMOTES_DIR): `<remote folder>/<version>/`, as on the CDN's origin. */
  dir: string;
  /** Where the CDN publishes every version (REMOTES_BASE_URL, absolute). */
  baseUrl: string;
  /** REMOTES_CACHE_MB, in bytes: least recently used versions leave beyond it, never a live one. */
  maxBytes: number;
  log: FastifyBaseLogger;
  /** Longest a version's download may take, every file together. */
  timeoutMs?: number;
  /** Most bytes one file may have (REMOTES_FETCH_MAX_FILE_MB): a larger answer is refused as it streams. */
  maxFileBytes?: number;
  /** Most bytes a version's server build may have, every file together. */
  maxVersionBytes?: number;
}

/**
 * How long a refused version is left before it is fetched again: doubling from the first, at most the last, so that a
 * CDN that comes back has its build taken within 30 s (the most, and the releases' next read 10 s later at most).
 */
const retryDelaysMs = { first: 5_000, most: 20_000 };
/** Same-origin redirects followed for one file, at most; a redirect to another origin is refused. */
const maxRedirects = 3;

/** The folders a download is written to before it is whole, and renamed into place. */
const incomingPrefix = '.incoming-';

const folderSize = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((total, entry) => total + statSync(join(entry.parentPath, entry.name)).size, 0);

/**
 * The server builds of the versions this site server renders with, fetched from the CDN's origin when it lacks one:
 * every file checked against the SHA-256 the release recorded (a file that differs, or that the CDN cannot send,
 * refuses the whole version), written to a hidden folder and renamed into place, so that a version on disk is always
 * whole. Bounded: after each fetch the least recently used versions leave until the folder fits, never a live one.
 */
export function buildCache({
  dir,
  baseUrl,
  maxBytes,
  log,
  timeoutMs = 60_000,
  maxFileBytes = 16 * 1024 * 1024,
  maxVersionBytes = 64 * 1024 * 1024,
}: BuildCacheOptions) {
  mkdirSync(dir, { recursive: true });
  // Stops every download at once when the server stops (SIGTERM): nothing waits for a slow CDN.
  const stopping = new AbortController();
  const origin = new URL(baseUrl).origin;
  // Versions refused lately, with when they may be fetched again: a broken CDN is not asked every 10 s.
  const refused = new Map<string, { error: RefusedBuild; until: number; delayMs: number }>();
  // What is on disk from an earlier run, by when it was last used (its folder's time, which `touch` sets).
  const versions = new Map<string, { used: number; bytes: number }>();
  // Only what this cache writes is read or removed: a remote's folder, its versions' folders, and its own unfinished
  // downloads (`.incoming-*`, left by a server that stopped mid-fetch). Anything else in the folder is left alone.
  for (const folder of Object.values(remotes).map((remote) => remote.folder)) {
    if (!existsSync(join(dir, folder))) continue;
    for (const version of readdirSync(join(dir, folder), { withFileTypes: true })) {
      const path = join(dir, folder, version.name);
      if (!version.isDirectory() || version.isSymbolicLink()) continue;
      if (version.name.startsWith(incomingPrefix)) rmSync(path, { recursive: true, force: true });
      else if (isVersionName(version.name))
        versions.set(`${folder}/${version.name}`, { used: statSync(path).mtimeMs, bytes: folderSize(path) });
    }
  }
  const fetching = new Map<string, Promise<void>>();
  /** Where the CDN publishes a file of a version (`folder/version`). */
  const fileUrl = (key: string, path: string) =>
    `${baseUrl}${key}/${path.split('/').map(encodeURIComponent).join('/')}`;

  const touch = (key: string) => {
    const known = versions.get(key)!;
    known.used = Date.now();
    const now = new Date();
    utimesSync(join(dir, key), now, now);
  };

  async function download(key: string, files: Record<string, string>) {
    const wanted = Object.entries(files).filter(([path]) => isServerFile(path));
    if (!wanted.some(([path]) => path === 'mf-manifest.json')) throw new RefusedBuild('mf-manifest.json', 'not listed');
    const incoming = join(dir, dirname(key), `${incomingPrefix}${process.pid}-${Date.now()}`);
    let bytes = 0;
    try {
      const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]);
      for (const [path, hash] of wanted) {
        if (!isSafePath(path)) throw new RefusedBuild(path.slice(0, 200), 'not a path inside the build');
        const target = join(incoming, path);
        await mkdir(dirname(target), { recursive: true });
        bytes += await fetchChecked(fileUrl(key, path), path, hash, target, signal, maxVersionBytes - bytes);
      }
      renameSync(incoming, join(dir, key));
      versions.set(key, { used: Date.now(), bytes });
    } finally {
      rmSync(incoming, { recursive: true, force: true });
    }
  }

  /**
   * One file from the CDN, streamed to `target` (or only read) while its SHA-256 is computed: refused when the CDN answers anything
   * but 200 (a redirect to another origin included), when it grows past the file's or the version's limit (the rest
   * is not read), when its hash differs from the recorded one, or when `signal` aborts. Resolves with its size.
   */
  async function fetchChecked(
    url: string,
    path: string,
    hash: string,
    target: string | undefined,
    signal: AbortSignal,
    versionBytesLeft: number,
  ): Promise<number> {
    let response: Response | undefined;
    let next = url;
    try {
      for (let hop = 0; hop <= maxRedirects; hop++) {
        response = await fetch(next, { signal, redirect: 'manual' });
        if (response.status < 300 || response.status >= 400) break;
        await response.body?.cancel();
        const location = response.headers.get('location');
        const to = location ? new URL(location, next) : undefined;
        if (!to || to.origin !== origin) {
          throw new RefusedBuild(
            path,
            `the CDN redirected it to ${to?.origin ?? 'nowhere'}: only ${origin} is trusted`,
          );
        }
        next = to.href;
        response = undefined;
      }
    } catch (error) {
      if (error instanceof RefusedBuild) throw error;
      throw new RefusedBuild(path, `cannot be fetched (${(error as Error).message})`);
    }
    if (!response) throw new RefusedBuild(path, `more than ${maxRedirects} redirects`);
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new RefusedBuild(path, `the CDN answered ${response.status}`);
    }
    const limit = Math.min(maxFileBytes, versionBytesLeft);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > limit) {
      await response.body.cancel();
      throw new RefusedBuild(path, `the CDN sends ${declared} bytes, more than the ${limit} allowed`);
    }
    const digest = createHash('sha256');
    // Without a target the file is only checked (the browser files, which this server does not keep).
    const file = target ? createWriteStream(target) : undefined;
    let size = 0;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > limit) throw new RefusedBuild(path, `larger than the ${limit} bytes allowed (stopped reading)`);
        digest.update(chunk);
        if (file && !file.write(chunk)) await once(file, 'drain');
      }
    } catch (error) {
      if (error instanceof RefusedBuild) throw error;
      throw new RefusedBuild(path, `cannot be fetched (${(error as Error).message})`);
    } finally {
      if (file) {
        file.end();
        await once(file, 'close').catch(() => undefined);
      }
      if (size > limit || signal.aborted) await response.body.cancel().catch(() => undefined);
    }
    const actual = digest.digest('hex');
    if (actual !== hash) throw new RefusedBuild(path, `its SHA-256 is ${actual}, the release recorded ${hash}`);
    return size;
  }

  // The files the CDN serves unlike their release, by version (`folder/version`): what browsers would run.
  const tampered = new Map<string, string[]>();
  const audited = new Set<string>();

  /**
   * Checks, in the background, every file of a version that browsers load from the CDN against the hash its release
   * recorded: the pages' preloads carry integrity, but the chunks the federation runtime imports by itself cannot,
   * so a file changed on the CDN is found here, logged once, and makes the server's health `degraded`.
   */
  async function audit(key: string, files: Record<string, string>) {
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(5 * 60_000)]);
    const differing: string[] = [];
    for (const [path, hash] of Object.entries(files)) {
      // Stylesheets are server files too, but browsers also load them (the next page's, on a client-side navigation).
      if ((isServerFile(path) && !path.endsWith('.css')) || /\.(br|gz)$/.test(path) || !isSafePath(path)) continue;
      try {
        await fetchChecked(fileUrl(key, path), path, hash, undefined, signal, maxFileBytes);
      } catch (error) {
        if (signal.aborted) return;
        differing.push(path);
        log.error(
          { build: key, file: path, why: (error as Error).message },
          `the CDN serves ${key}/${path} unlike its release: browsers that load it run something else`,
        );
      }
    }
    if (differing.length) tampered.set(key, differing);
    else tampered.delete(key);
  }

  /** Removes the least recently used versions not in `keep` until the folder fits in `maxBytes`. */
  function evict(keep: Set<string>) {
    let total = [...versions.values()].reduce((sum, version) => sum + version.bytes, 0);
    const candidates = [...versions.entries()]
      .filter(([key]) => !keep.has(key))
      .sort(([, a], [, b]) => a.used - b.used);
    for (const [key, version] of candidates) {
      if (total <= maxBytes) break;
      rmSync(join(dir, key), { recursive: true, force: true });
      versions.delete(key);
      total -= version.bytes;
      log.info({ build: key, bytes: version.bytes }, 'build left the cache (least recently used)');
    }
    if (total > maxBytes) {
      log.warn(
        { bytes: total, maxBytes },
        'the live builds alone are larger than REMOTES_CACHE_MB: they are kept, nothing else is',
      );
    }
  }

  return {
    dir,
    /**
     * Resolves once `version` of `remote` is on disk, fetched and checked when it was not; rejects with a
     * `RefusedBuild` naming the file otherwise. `live`: every version to keep whatever the size (`folder/version`).
     */
    async ensure(remote: RemoteName, version: string, files: () => Promise<Record<string, string>>, live: string[]) {
      // A version comes from the database: it becomes a folder's name only when it is a version's name, never a path.
      if (!isVersionName(version)) throw new RefusedBuild(version.slice(0, 100), 'is not a version name');
      const key = `${remotes[remote].folder}/${version}`;
      if (!versions.has(key) || !existsSync(join(dir, key))) {
        const lately = refused.get(key);
        if (lately && Date.now() < lately.until) throw lately.error;
        let pending = fetching.get(key);
        if (!pending) {
          const started = Date.now();
          pending = files()
            .then((listed) => download(key, listed))
            .then(() => {
              refused.delete(key);
              log.info({ build: key, ms: Date.now() - started }, 'build fetched from the CDN and checked');
              siteEvents.build({ remote: remotes[remote].folder, outcome: 'fetched' });
            })
            .catch((error: unknown) => {
              if (error instanceof RefusedBuild) {
                const delayMs = lately ? Math.min(lately.delayMs * 2, retryDelaysMs.most) : retryDelaysMs.first;
                refused.set(key, { error, until: Date.now() + delayMs, delayMs });
                siteEvents.build({ remote: remotes[remote].folder, outcome: 'refused', reason: error.reason });
              }
              throw error;
            })
            .finally(() => fetching.delete(key));
          fetching.set(key, pending);
        }
        await pending;
      }
      touch(key);
      evict(new Set([...live, key]));
      if (!audited.has(key)) {
        audited.add(key);
        void files()
          .then((listed) => audit(key, listed))
          .catch(() => undefined);
      }
    },
    /** The browser files the CDN serves unlike their release, of the versions in `keys` (`folder/version`). */
    tamperedAmong: (keys: string[]) =>
      Object.fromEntries(keys.flatMap((key) => (tampered.has(key) ? [[key, tampered.get(key)!]] : []))),
    /** Stops every download under way at once (the server is stopping); none starts after. */
    close: () => stopping.abort(new Error('the site server is stopping')),
    /** The versions on disk, `folder/version`, least recently used first. */
    held: () => [...versions.entries()].sort(([, a], [, b]) => a.used - b.used).map(([key]) => key),
    bytes: () => [...versions.values()].reduce((sum, version) => sum + version.bytes, 0),
  };
}

export type BuildCache = ReturnType<typeof buildCache>;

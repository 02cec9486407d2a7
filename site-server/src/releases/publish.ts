import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import { integrityFile, isPinnedFile, remoteEntryFile, remotes, type RemoteName } from '@gift/federation';
import { ReleaseError } from '../ledger/ledger.ts';
import { buildLimits, type BuildLimits } from '../ledger/build-limits.ts';
import { ledgerOf, versionsDir, type ReleaseSettings } from '../ledger/switches.ts';

/**
 * Publishing a version of a remote: its build (made afresh, or copied), checked to be plain files, hashed once for
 * the integrity its pages name and for the ledger, and renamed into REMOTES_DIR in one step. Nothing goes live here.
 */

/** Files of a build by their path, with a fingerprint of their content (SHA-256, hex). */
export function filesOf(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  if (!existsSync(dir)) return files;
  for (const path of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = join(dir, path);
    if (statSync(full).isFile()) files.set(path, createHash('sha256').update(readFileSync(full)).digest('hex'));
  }
  return files;
}

/**
 * Writes the build's `integrity.json`: the Subresource Integrity of each script and stylesheet (`sha256-<base64>`),
 * from the same hashes the release records (`files`, which gains the file's own), so that a page names them where the
 * browser loads them from the page (prerender.ts) and a tampered file on the CDN is refused by every browser.
 * Published with the build, hash-checked like its server files.
 */
export function writeIntegrity(dir: string, files: Map<string, string>) {
  const integrity = Object.fromEntries(
    [...files]
      .filter(([path]) => isPinnedFile(path) && !path.split(sep).includes('ssr'))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, hex]) => [path.split(sep).join('/'), `sha256-${Buffer.from(hex, 'hex').toString('base64')}`]),
  );
  const text = `${JSON.stringify(integrity, null, 1)}\n`;
  writeFileSync(join(dir, integrityFile), text);
  files.set(integrityFile, createHash('sha256').update(text).digest('hex'));
}

/** How two builds differ, in a line: files new, changed, gone and the same. */
export function comparedBuilds(oldDir: string | undefined, newDir: string): string {
  const before = oldDir ? filesOf(oldDir) : new Map<string, string>();
  const after = filesOf(newDir);
  let added = 0;
  let changed = 0;
  let same = 0;
  for (const [path, hash] of after) {
    const earlier = before.get(path);
    if (earlier === undefined) added += 1;
    else if (earlier === hash) same += 1;
    else changed += 1;
  }
  const gone = [...before.keys()].filter((path) => !after.has(path)).length;
  return `${after.size} files: ${added} new, ${changed} changed, ${gone} gone, ${same} the same`;
}

/**
 * Builds a remote alone, with its own package's `build` script, into `outDir` rather than its `dist` (so a release
 * never disturbs the workspace's build); throws when the build fails. Quiet: one line with its time and size, Vite's
 * own output only when it fails or with `verbose`.
 */
export function buildRemote(
  root: string,
  remote: RemoteName,
  outDir: string,
  { verbose = false, log = (line: string) => console.log(line) } = {},
) {
  const folder = remotes[remote].folder;
  const started = performance.now();
  log(`Building ${folder}${verbose ? '' : ' (--verbose for its build\u2019s own output)'}...`);
  const result = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: join(root, folder),
    stdio: verbose ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, RELEASE_OUT_DIR: outDir },
  });
  if (result.status !== 0) {
    if (!verbose)
      process.stderr.write(Buffer.concat([result.stdout ?? Buffer.alloc(0), result.stderr ?? Buffer.alloc(0)]));
    throw new ReleaseError(
      `The ${folder} build failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}): nothing was published.`,
    );
  }
  const bytes = readdirSync(outDir, { recursive: true, encoding: 'utf8' })
    .map((path) => statSync(join(outDir, path)))
    .reduce((total, stat) => total + (stat.isFile() ? stat.size : 0), 0);
  log(
    `  built ${folder} in ${((performance.now() - started) / 1000).toFixed(1)} s: ` +
      `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`,
  );
}

export interface PublishOptions {
  /** Publish the remote's `dist` as it is, without building. */
  prebuilt?: boolean;
  /** Publish this folder, a build of the remote made elsewhere (a CI job's artefact), as it is. */
  from?: string;
  now?: Date;
  /** Print the build's own output (Vite's) as it comes. */
  verbose?: boolean;
  log?: (line: string) => void;
}

/**
 * Refuses a build that holds anything but plain files and folders, naming the first other thing: a symbolic link would
 * publish whatever it points at (any file of the machine, served at the version's address), and a special file cannot
 * be published at all. Names with control characters, Unicode's bidirectional controls (which make a name read as
 * another) or backslashes are refused too, and so is a file or a build heavier than the site servers would fetch.
 */
export function requirePlainBuild(dir: string, shownAs: string, limits: BuildLimits = buildLimits({})) {
  let total = 0;
  const refuse = (what: string) => {
    throw new ReleaseError(`${shownAs}: ${what}. Nothing was published.`);
  };
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = relative(dir, join(entry.parentPath, entry.name));
    const why = entry.isSymbolicLink()
      ? 'is a symbolic link'
      : !entry.isFile() && !entry.isDirectory()
        ? 'is not a plain file or folder'
        : /[\p{Cc}\u202A-\u202E\u2066-\u2069\\]/u.test(path)
          ? 'has a control character, a bidirectional control or a backslash in its name'
          : undefined;
    if (why) refuse(`${JSON.stringify(path)} ${why}; a build holds plain files and folders only`);
    if (!entry.isFile()) continue;
    const { size } = statSync(join(dir, path));
    if (size > limits.maxFileBytes) {
      refuse(
        `${JSON.stringify(path)} is ${mib(size)}, over the ${mib(limits.maxFileBytes)} a file may be ` +
          '(REMOTES_FETCH_MAX_FILE_MB: the site servers fetch no larger file)',
      );
    }
    total += size;
    if (total > limits.maxVersionBytes) {
      refuse(
        `the build is over the ${mib(limits.maxVersionBytes)} a build may be (REMOTES_FETCH_MAX_VERSION_MB: the ` +
          `site servers fetch no larger build), at ${JSON.stringify(path)}`,
      );
    }
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Publishes a new version of a remote: built afresh (or copied from its `dist` or another folder) into a hidden
 * folder, then renamed into place in one step, and recorded. A version folder is never written again; one that
 * exists is refused.
 */
export async function publishBuild(
  settings: ReleaseSettings,
  remote: RemoteName,
  { prebuilt = false, from, now = new Date(), verbose, log }: PublishOptions = {},
) {
  const dir = versionsDir(settings, remote);
  mkdirSync(dir, { recursive: true });
  // Under the remote's release lock: a folder being copied in now can only be one a release that is gone left.
  for (const name of readdirSync(dir).filter((name) => name.startsWith('.incoming-'))) {
    rmSync(join(dir, name), { recursive: true, force: true });
    (log ?? console.log)(`Removed ${name}, left by a release that was stopped midway.`);
  }
  const incoming = join(dir, `.incoming-${process.pid}-${now.getTime()}`);
  try {
    const copyFrom = from ?? (prebuilt ? join(settings.root, remotes[remote].folder, 'dist') : undefined);
    if (copyFrom) {
      if (!existsSync(join(copyFrom, remoteEntryFile))) {
        throw new ReleaseError(
          `${relative(settings.root, copyFrom) || copyFrom} holds no build (no ${remoteEntryFile}): run its build first.`,
        );
      }
      requirePlainBuild(copyFrom, relative(settings.root, copyFrom) || copyFrom, settings.limits);
      cpSync(copyFrom, incoming, { recursive: true });
    } else {
      buildRemote(settings.root, remote, incoming, { verbose, log });
      requirePlainBuild(incoming, `the build of ${remotes[remote].folder}`, settings.limits);
    }
    // Every file hashed once: for the integrity the pages name, and for what the release records.
    const files = filesOf(incoming);
    writeIntegrity(incoming, files);
    const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '.').replace('Z', '');
    const fingerprint = createHash('sha256')
      .update(readFileSync(join(incoming, remoteEntryFile)))
      .digest('hex');
    const version = `${stamp}-${fingerprint.slice(0, 8)}`;
    if (existsSync(join(dir, version))) {
      throw new ReleaseError(`Version ${version} of ${remotes[remote].folder} exists already; nothing was changed.`);
    }
    renameSync(incoming, join(dir, version));
    await ledgerOf(settings).published(remote, version, files);
    return version;
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

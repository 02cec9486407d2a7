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
import lockfile from 'proper-lockfile';
import { printable } from 'api';
import { integrityFile, remoteEntryFile, remoteNames, remotes, type RemoteName } from '@gift/federation';
import { checkCandidate, type CheckReport } from './release-checks.ts';
import { fileLedger, ReleaseError, type ReleaseLedger } from './release-ledger.ts';
import { mayGoLiveAgain, switchesOf, verdictOf, versionLiveBefore, type ReleaseEvent } from './release-records.ts';

export { ReleaseError, readManifestFile, switchManifest } from './release-ledger.ts';

export interface ReleaseSettings {
  /** Workspace root, where each remote's folder and build are. */
  root: string;
  /** The folder of deployed builds: `<remote folder>/<version>/` (REMOTES_DIR, as the site server reads it). */
  remotesDir: string;
  /** The manifest the site server reads on every request (REMOTES_MANIFEST). */
  manifestFile: string;
  /** Where `remotesDir` is published: `/remotes/` when the site serves it, a CDN's URL otherwise. */
  remotesBaseUrl?: string;
  /** Where what is live and each version's events are kept: PostgreSQL's tables, or by default `manifestFile`. */
  ledger?: ReleaseLedger;
}

const fileLedgers = new WeakMap<ReleaseSettings, ReleaseLedger>();
/** The settings' ledger: the database's when given, the manifest file's otherwise. */
export function ledgerOf(settings: ReleaseSettings): ReleaseLedger {
  if (settings.ledger) return settings.ledger;
  let ledger = fileLedgers.get(settings);
  if (!ledger) fileLedgers.set(settings, (ledger = fileLedger(settings)));
  return ledger;
}

/** A remote by its federation name or its folder (`share_location` or `share-location`). */
export function remoteNamed(name: string | undefined): RemoteName {
  const found = remoteNames.find((remote) => remote === name || remotes[remote].folder === name);
  if (!found) {
    const known = remoteNames.map((remote) => remotes[remote].folder).join(', ');
    throw new ReleaseError(
      name ? `There is no remote called "${name}". The remotes: ${known}.` : `Name a remote: ${known}.`,
    );
  }
  return found;
}

const versionsDir = (settings: ReleaseSettings, remote: RemoteName) =>
  join(settings.remotesDir, remotes[remote].folder);

/** The versions of a remote published so far, oldest first (a version's name starts with its time). */
export const versionsOf = (settings: ReleaseSettings, remote: RemoteName) => ledgerOf(settings).versions(remote);

/** The versions of a remote, when `version` is one of them; a refusal that lists them otherwise. */
export async function requirePublished(settings: ReleaseSettings, remote: RemoteName, version: string) {
  const versions = await versionsOf(settings, remote);
  if (!versions.includes(version)) {
    throw new ReleaseError(
      `${remote} has no version ${version}. ${versions.length ? `Its versions: ${versions.join(', ')}.` : 'It has none.'}`,
    );
  }
  return versions;
}

/** The version live now for a remote, if it is one of the published ones. */
export const liveVersion = (settings: ReleaseSettings, remote: RemoteName) => ledgerOf(settings).liveVersion(remote);

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
      .filter(([path]) => /\.(js|css)$/.test(path) && !path.split(sep).includes('ssr'))
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
 * never disturbs the workspace's build); throws when the build fails.
 */
export function buildRemote(root: string, remote: RemoteName, outDir: string) {
  const folder = remotes[remote].folder;
  const result = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: join(root, folder),
    stdio: 'inherit',
    env: { ...process.env, RELEASE_OUT_DIR: outDir },
  });
  if (result.status !== 0) {
    throw new ReleaseError(
      `The ${folder} build failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}): nothing was published.`,
    );
  }
}

export interface PublishOptions {
  /** Publish the remote's `dist` as it is, without building. */
  prebuilt?: boolean;
  /** Publish this folder, a build of the remote made elsewhere (a CI job's artefact), as it is. */
  from?: string;
  now?: Date;
}

/**
 * Refuses a build that holds anything but plain files and folders, naming the first other thing: a symbolic link would
 * publish whatever it points at (any file of the machine, served at the version's address), and a special file cannot
 * be published at all. Names with control characters or backslashes are refused too.
 */
export function requirePlainBuild(dir: string, shownAs: string) {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = relative(dir, join(entry.parentPath, entry.name));
    const why = entry.isSymbolicLink()
      ? 'is a symbolic link'
      : !entry.isFile() && !entry.isDirectory()
        ? 'is not a plain file or folder'
        : /[\p{Cc}\\]/u.test(path)
          ? 'has a control character or a backslash in its name'
          : undefined;
    if (why) {
      throw new ReleaseError(
        `${shownAs}: ${JSON.stringify(path)} ${why}; a build holds plain files and folders only. Nothing was published.`,
      );
    }
  }
}

/**
 * Publishes a new version of a remote: built afresh (or copied from its `dist` or another folder) into a hidden
 * folder, then renamed into place in one step, and recorded. A version folder is never written again; one that
 * exists is refused.
 */
export async function publishBuild(
  settings: ReleaseSettings,
  remote: RemoteName,
  { prebuilt = false, from, now = new Date() }: PublishOptions = {},
) {
  const dir = versionsDir(settings, remote);
  mkdirSync(dir, { recursive: true });
  const incoming = join(dir, `.incoming-${process.pid}-${now.getTime()}`);
  try {
    const copyFrom = from ?? (prebuilt ? join(settings.root, remotes[remote].folder, 'dist') : undefined);
    if (copyFrom) {
      if (!existsSync(join(copyFrom, remoteEntryFile))) {
        throw new ReleaseError(
          `${relative(settings.root, copyFrom) || copyFrom} holds no build (no ${remoteEntryFile}): run its build first.`,
        );
      }
      requirePlainBuild(copyFrom, relative(settings.root, copyFrom) || copyFrom);
      cpSync(copyFrom, incoming, { recursive: true });
    } else {
      buildRemote(settings.root, remote, incoming);
      requirePlainBuild(incoming, `the build of ${remotes[remote].folder}`);
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
      throw new ReleaseError(`Version ${version} of ${remote} exists already; nothing was changed.`);
    }
    renameSync(incoming, join(dir, version));
    await ledgerOf(settings).published(remote, version, files);
    return version;
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

/**
 * Holds a remote's release lock (one release of a remote at a time) while `work` runs; `onWait` hears when another
 * release of the same remote holds it, before this one waits for it.
 */
async function oneReleaseAtATime<T>(
  settings: ReleaseSettings,
  remote: RemoteName,
  work: () => Promise<T>,
  onWait: () => void = () => {},
) {
  mkdirSync(versionsDir(settings, remote), { recursive: true });
  const lock = (retries: number) =>
    lockfile.lock(versionsDir(settings, remote), {
      lockfilePath: join(versionsDir(settings, remote), '.release.lock'),
      stale: 60_000,
      update: 10_000,
      retries: { retries, minTimeout: 1000, maxTimeout: 5000, factor: 1.2 },
      onCompromised: (error) => {
        throw error;
      },
    });
  const unlock = await lock(0)
    .catch(() => {
      onWait();
      return lock(120);
    })
    .catch((error: unknown) => {
      throw new ReleaseError(`Another release of ${remote} is still under way: ${(error as Error).message}`);
    });
  try {
    return await work();
  } finally {
    await unlock();
  }
}

export interface Switch {
  remote: RemoteName;
  from?: string;
  to: string;
  entry: string;
  changes: string;
  missing: string[];
}

/**
 * Makes `version` of `remote` live in one step with `events` (only while `onlyIfLive` is live, when given), and says
 * what changed; undefined when `onlyIfLive` no longer holds.
 */
async function switchTo(
  settings: ReleaseSettings,
  remote: RemoteName,
  version: string,
  events: { version: string; event: ReleaseEvent }[],
  onlyIfLive?: string,
): Promise<Switch | undefined> {
  const switched = await ledgerOf(settings).switchTo(remote, version, events, onlyIfLive);
  if (!switched) return undefined;
  const { from, after } = switched;
  const dir = versionsDir(settings, remote);
  return {
    remote,
    from,
    to: version,
    entry: after[remote]!,
    changes: comparedBuilds(from && join(dir, from), join(dir, version)),
    missing: remoteNames.filter((name) => !after[name]).map((name) => remotes[name].folder),
  };
}

export interface PromoteOptions {
  /** Skip the checks: the reason is recorded with the release, with who forced it and when. */
  force?: { reason: string };
  /** Let a candidate whose JavaScript is more than 10% heavier than the live build's go live. */
  allowHeavier?: boolean;
  /** Hears each line of progress: the checks' results, a wait for another release. */
  log?: (line: string) => void;
}

/** A promote that went through: the switch, and the checks' report unless it was forced. */
export type Promotion = Switch & { report?: CheckReport };

/** A refusal by the checks: the manifest was not changed. */
export class RefusedRelease extends ReleaseError {
  constructor(
    readonly remote: RemoteName,
    readonly version: string,
    readonly report: CheckReport,
    live: string | undefined,
  ) {
    super(
      `Refused: ${printable(report.failure ?? '')}\n${remotes[remote].folder} ${version} did not go live; the manifest is as it was` +
        `${live ? ` (${live} is still live)` : ''}. To release it anyway: --force --reason "<why>".`,
    );
  }
}

/** Checks `version` and switches to it when every check passes (or `force` says so); under the remote's lock. */
async function promoteLocked(settings: ReleaseSettings, remote: RemoteName, version: string, options: PromoteOptions) {
  const { force, allowHeavier, log = () => {} } = options;
  await requirePublished(settings, remote, version);
  const ledger = ledgerOf(settings);
  const live = await ledger.liveVersion(remote);
  if (version === live) throw new ReleaseError(`${remotes[remote].folder} ${version} is live already.`);
  let report: CheckReport | undefined;
  if (force) {
    await ledger.record(remote, version, { event: 'forced', reason: force.reason });
    log(`Checks skipped (--force): ${printable(force.reason)}`);
  } else {
    log(`Checking ${remotes[remote].folder} ${version} against ${live ?? 'no live version'}:`);
    report = await checkCandidate(
      settings,
      { remote, version, live: await ledger.manifest(), liveVersion: live, allowHeavier },
      log,
    );
    log(`checks ${report.passed ? 'passed' : 'failed'} in ${report.seconds.toFixed(1)} s`);
    if (!report.passed) {
      await ledger.record(remote, version, { event: 'refused', why: report.failure! });
      throw new RefusedRelease(remote, version, report, live);
    }
    await ledger.record(remote, version, { event: 'passed', seconds: report.seconds });
  }
  const change = await switchTo(settings, remote, version, [{ version, event: { event: 'live', how: 'promote' } }]);
  return { ...change!, report };
}

/**
 * `pnpm promote <remote> <version>`: runs the checks against a published version and switches the manifest to it
 * only if all pass. One release of a remote at a time: a second waits; releases of two remotes run side by side.
 */
export async function promote(
  settings: ReleaseSettings,
  remote: RemoteName,
  version: string,
  options: PromoteOptions = {},
): Promise<Promotion> {
  return oneReleaseAtATime(
    settings,
    remote,
    () => promoteLocked(settings, remote, version, options),
    waitNotice(remote, options.log),
  );
}

const waitNotice = (remote: RemoteName, log?: (line: string) => void) => () =>
  log?.(`Waiting for the release of ${remotes[remote].folder} that is under way...`);

/** `pnpm release <remote> --candidate`: builds and publishes a version without switching; nothing goes live. */
export async function publishCandidate(
  settings: ReleaseSettings,
  remote: RemoteName,
  options: PublishOptions & { log?: (line: string) => void } = {},
): Promise<string> {
  return oneReleaseAtATime(
    settings,
    remote,
    async () => publishBuild(settings, remote, options),
    waitNotice(remote, options.log),
  );
}

/**
 * `pnpm release <remote>`: builds the remote alone (unless prebuilt), publishes the build as a new version, and
 * promotes it: the checks, then the switch.
 */
export async function release(
  settings: ReleaseSettings,
  remote: RemoteName,
  options: PublishOptions & PromoteOptions = {},
): Promise<Promotion> {
  return oneReleaseAtATime(
    settings,
    remote,
    async () => promoteLocked(settings, remote, await publishBuild(settings, remote, options), options),
    waitNotice(remote, options.log),
  );
}

/**
 * `pnpm rollback <remote> [version]`: switches back to the version that was live before the live one (by the ledger's
 * switches, passing over refused, unchecked and watch-rolled-back versions), or to the one named, which must have
 * passed its checks or come with `--force --reason`.
 */
export async function rollback(
  settings: ReleaseSettings,
  remote: RemoteName,
  version?: string,
  options: { force?: { reason: string } } = {},
) {
  return oneReleaseAtATime(settings, remote, async () => {
    const ledger = ledgerOf(settings);
    if (version !== undefined) await requirePublished(settings, remote, version);
    const [live, records] = [await ledger.liveVersion(remote), await ledger.records(remote)];
    const target = version ?? versionLiveBefore(records, live);
    if (!target) {
      throw new ReleaseError(
        `${remote} has no version that was live before ${live ?? 'now'} and may go live again ` +
          `(refused, unchecked and rolled-back versions are passed over): name one with --force --reason.`,
      );
    }
    if (!options.force && !mayGoLiveAgain(records, target)) {
      throw new ReleaseError(
        `${remote} ${target} may not go live: ${verdictOf(records, target)}. ` +
          `Give --force --reason "<why>" to switch to it anyway.`,
      );
    }
    const events: { version: string; event: ReleaseEvent }[] = [
      ...(options.force
        ? [{ version: target, event: { event: 'forced', reason: options.force.reason } as const }]
        : []),
      { version: target, event: { event: 'live', how: 'rollback' } },
    ];
    return (await switchTo(settings, remote, target, events))!;
  });
}

/**
 * The release watch's rollback: back from `from` to `to`, only if `from` is still live (a release made meanwhile, or
 * another server's watch, wins), with `why` recorded against `from`. Resolves with the switch, or undefined.
 */
export async function watchRollback(
  settings: ReleaseSettings,
  remote: RemoteName,
  { from, to, why }: { from: string; to: string; why: string },
): Promise<Switch | undefined> {
  return oneReleaseAtATime(settings, remote, async () => {
    if (!(await versionsOf(settings, remote)).includes(to)) return undefined;
    // Only while `from` is live, checked in the same step as the switch: another server's watch may be first.
    return switchTo(
      settings,
      remote,
      to,
      [
        { version: from, event: { event: 'rolled-back', why } },
        { version: to, event: { event: 'live', how: 'rollback' } },
      ],
      from,
    );
  });
}

/** `pnpm releases <remote>`: every published version, oldest first, its verdict, and which one is live. */
export async function releases(settings: ReleaseSettings, remote: RemoteName) {
  const ledger = ledgerOf(settings);
  const live = await ledger.liveVersion(remote);
  const records = await ledger.records(remote);
  return (await ledger.versions(remote)).map((version) => ({
    version,
    live: version === live,
    verdict: verdictOf(records, version),
  }));
}

/** `pnpm releases <remote>`, its second part: the switches, newest first, each a promote or a rollback. */
export async function switches(settings: ReleaseSettings, remote: RemoteName) {
  return switchesOf(await ledgerOf(settings).records(remote));
}

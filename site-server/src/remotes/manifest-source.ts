import { readFile, stat } from 'node:fs/promises';
import { Ajv } from 'ajv';
import type { FastifyBaseLogger } from 'fastify';
import { maxManifestBytes, remotesManifestSchema } from '@gift/contracts';
import { remoteNames, type RemoteName, type RemotesManifest } from '@gift/federation';
import { onFileChange, watchedFile } from './watched-file.ts';
import { rolloutsFile, rolloutsIn, splitOf, type Splits } from '../ledger/rollouts.ts';

const validate = new Ajv({ allErrors: false }).compile(remotesManifestSchema(remoteNames));

const noSplits: Splits = Object.freeze({});

/**
 * The rollouts under way beside a manifest file (its `.rollouts.json`), as pages split visitors by them: read again
 * when the file changes, the same object until then. A rollout whose entry is not one the manifest could name (the
 * manifest's own schema) is passed over: its visitors get the current version.
 */
export function rolloutSplits(manifestFile: string): () => Splits {
  const file = watchedFile(rolloutsFile(manifestFile), (text) => {
    const splits: Splits = {};
    for (const [remote, rollout] of Object.entries(rolloutsIn(text))) {
      if (validate({ [remote]: rollout.entry })) splits[remote as RemoteName] = splitOf(rollout);
    }
    return Object.keys(splits).length ? splits : noSplits;
  });
  return () => file() ?? noSplits;
}

/** The manifest in `file`, or why it cannot be used, in words that name no path on this machine. */
async function readManifestFile(file: string): Promise<{ manifest: RemotesManifest } | { problem: string }> {
  let size: number;
  try {
    const found = await stat(file);
    if (!found.isFile()) return { problem: 'the manifest is not a file' };
    size = found.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'the manifest file is missing' : `the manifest cannot be read (${code})` };
  }
  if (size > maxManifestBytes) return { problem: `the manifest is larger than ${maxManifestBytes / 1024} KiB` };
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code ? `the manifest cannot be read (${code})` : 'the manifest is not valid JSON' };
  }
  if (!validate(data)) {
    const [first] = validate.errors ?? [];
    const where = first?.instancePath || '';
    const what =
      first?.keyword === 'additionalProperties'
        ? `names an unknown remote "${String((first.params as { additionalProperty: string }).additionalProperty).slice(0, 40)}"`
        : `${where ? `${where.slice(1)} ` : ''}${first?.message ?? 'does not match its schema'}`;
    return { problem: `the manifest ${what}` };
  }
  return { manifest: data as RemotesManifest };
}

export interface ManifestStatus {
  /** Whether the file as it is now is the manifest served. */
  ok: boolean;
  /** Why not, when it is not. */
  problem?: string;
  /** Whether a good manifest has ever been read: without one, every remote's pages show "unavailable". */
  hasManifest: boolean;
}

/**
 * The release manifest as pages are composed with it: kept in memory, and read again from `file` (checked against its
 * schema: known remotes, entry URLs of the expected shape, at most 64 KiB) when the file changes, which a watch on its
 * folder reports; nothing is read per request. When the file turns bad (truncated, missing, a folder, `null`, too
 * large, an unknown remote) the last good manifest keeps being served, the problem is logged once per change, and
 * `status()` says so for the health check; before any good one, no remote is named.
 */
export function manifestSource(file: string, log: FastifyBaseLogger) {
  let lastGood: RemotesManifest | undefined;
  let status: ManifestStatus = { ok: true, hasManifest: false };
  let current: Promise<RemotesManifest> | undefined;
  // Goes up with each change: a read that the file changed under says nothing of the state now.
  let generation = 0;

  const evaluate = async (): Promise<RemotesManifest> => {
    const started = generation;
    const read = await readManifestFile(file);
    if (started !== generation) return 'manifest' in read ? read.manifest : (lastGood ?? {});
    if ('manifest' in read) {
      if (!status.ok) log.info('The release manifest is readable again');
      lastGood = read.manifest;
      status = { ok: true, hasManifest: true };
      return lastGood;
    }
    if (status.problem !== read.problem) {
      log.error(
        { problem: read.problem },
        lastGood ? 'The release manifest is unusable: serving the last good one' : 'The release manifest is unusable',
      );
    }
    status = { ok: false, problem: read.problem, hasManifest: lastGood !== undefined };
    return lastGood ?? {};
  };

  let following = false;
  const follow = () => {
    following ||= onFileChange(file, () => {
      generation++;
      current = undefined;
    });
    return following;
  };

  return {
    /** The manifest pages are composed with now. */
    read(): Promise<RemotesManifest> {
      // A folder that cannot be watched (it is not there yet) is read on each use until it can be.
      if (!follow()) return evaluate();
      current ??= evaluate();
      return current;
    },
    status: () => status,
  };
}

import { fieldDataRetention, type KnownVersion } from 'api/commands';
import { isRemoteName, remotes, type RemotesManifest } from '@gift/federation';
import { isPublished, liveVersionsOf, publishedAt } from '../ledger/versions.ts';
import type { Splits } from '../ledger/rollouts.ts';

/**
 * The versions field data may be about (the API refuses a report of any other): a remote's version live now, or one
 * published here within the raw reports' retention (a candidate being previewed, the version a rollback left), or the
 * canary of a rollout under way.
 */
export function knownVersions({
  readManifest,
  readSplits = () => ({}),
  remotesDir,
  now = () => Date.now(),
}: {
  readManifest: () => Promise<RemotesManifest>;
  readSplits?: () => Splits;
  remotesDir?: string;
  now?: () => number;
}): KnownVersion {
  return async (remote, version) => {
    if (!isRemoteName(remote)) return false;
    if (liveVersionsOf(await readManifest())[remotes[remote].folder] === version) return true;
    if (readSplits()[remote]?.version === version) return true;
    const published = publishedAt(version);
    return Boolean(
      remotesDir &&
      published &&
      now() - published.getTime() < fieldDataRetention.rawHours * 3_600_000 &&
      isPublished(remotesDir, remote, version),
    );
  };
}

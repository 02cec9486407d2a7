// releases/: the release tool teams run: publish, check, promote, roll back, list; it meets the server at ledger/.
import { join } from 'node:path';
import { printable } from 'api/commands';
import { remoteNames, remotes, type RemoteName } from '@gift/federation';
import type { CheckReport, CheckResources } from './checks.ts';
import { comparedBuilds, publishBuild, type PublishOptions } from './publish.ts';
import { ReleaseError } from '../ledger/ledger.ts';
import { ledgerOf, oneReleaseAtATime, releaseUnderWay, versionsDir, type ReleaseSettings } from '../ledger/switches.ts';
import {
  historyOf,
  mayGoLiveAgain,
  operator,
  verdictOf,
  versionLiveBefore,
  type ReleaseEvent,
} from '../ledger/records.ts';
import { shareOf, type Experiment, type Rollout } from '../ledger/rollouts.ts';
import { versionEntryUrl } from '../ledger/versions.ts';

export { ReleaseError, readManifestFile, switchManifest } from '../ledger/ledger.ts';
export type { ReleaseSettings } from '../ledger/switches.ts';

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

/** The versions of a remote published so far, oldest first (a version's name starts with its time). */
export const versionsOf = (settings: ReleaseSettings, remote: RemoteName) => ledgerOf(settings).versions(remote);

/** The versions of a remote, when `version` is one of them; a refusal that lists them otherwise. */
export async function requirePublished(settings: ReleaseSettings, remote: RemoteName, version: string) {
  const versions = await versionsOf(settings, remote);
  if (!versions.includes(version)) {
    throw new ReleaseError(
      `${remotes[remote].folder} has no version ${version}. ${versions.length ? `Its versions: ${versions.join(', ')}.` : 'It has none.'}`,
    );
  }
  return versions;
}

/** The version live now for a remote, if it is one of the published ones. */
export const liveVersion = (settings: ReleaseSettings, remote: RemoteName) => ledgerOf(settings).liveVersion(remote);

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
  /**
   * A staged rollout instead of a switch for everyone: the shares of visitors, and each stage's minutes; with
   * `experiment`, an experiment (one stage, never advanced by the watch).
   */
  rollout?: RolloutPlan;
  /** A browser and a live site the checks may use instead of starting their own (checks.ts). */
  lent?: CheckResources;
}

export type RolloutPlan = { stages: number[]; stageMinutes: number; experiment?: Experiment };

/**
 * A promote that went through: the switch, and the checks' report unless it was forced. With `rollout`, nothing
 * switched for everyone: the rollout began, and `from`, `to` and `changes` say what its first visitors get instead.
 */
export type Promotion = Switch & { report?: CheckReport; rollout?: Rollout };

/** Refuses a release, promote or rollback of a remote while a rollout of it is under way: it is decided first. */
async function refuseDuringRollout(settings: ReleaseSettings, remote: RemoteName) {
  const under = (await ledgerOf(settings).rollouts())[remote];
  if (!under) return;
  const folder = remotes[remote].folder;
  if (under.experiment) {
    throw new ReleaseError(
      `An experiment on ${folder} ${under.version} is under way (${shareOf(under)}% of visitors): nothing else goes ` +
        `live until it ends, one experiment or rollout of a remote at a time. pnpm experiment ${folder} stop, or ` +
        `pnpm experiment ${folder} ship, first.`,
    );
  }
  throw new ReleaseError(
    `A rollout of ${folder} ${under.version} is under way (${shareOf(under)}% of visitors): nothing else goes live ` +
      `until it ends, one experiment or rollout of a remote at a time. pnpm rollout ${folder} abort, or ` +
      `pnpm rollout ${folder} complete, first.`,
  );
}

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
  await refuseDuringRollout(settings, remote);
  const ledger = ledgerOf(settings);
  const live = await ledger.liveVersion(remote);
  if (version === live) throw new ReleaseError(`${remotes[remote].folder} ${version} is live already.`);
  if (options.rollout && !live) {
    throw new ReleaseError(
      `${remotes[remote].folder} has no live version for a rollout to be compared with: promote it without --stages.`,
    );
  }
  let report: CheckReport | undefined;
  if (force) {
    await ledger.record(remote, version, { event: 'forced', reason: force.reason });
    log(`Checks skipped (--force): ${printable(force.reason)}`);
  } else {
    // A release stopped mid-checks (killed, a machine gone) shows as interrupted in `pnpm releases`, not unchecked.
    await ledger.record(remote, version, { event: 'checks-started' });
    log(`Checking ${remotes[remote].folder} ${version} against ${live ?? 'no live version'}:`);
    // Loaded when a promote checks: Chromium's driver and a site server are most of a command's start.
    const { checkCandidate } = await import('./checks.ts');
    report = await checkCandidate(
      settings,
      { remote, version, live: await ledger.manifest(), liveVersion: live, allowHeavier },
      log,
      options.lent,
    );
    log(`checks ${report.passed ? 'passed' : 'failed'} in ${report.seconds.toFixed(1)} s`);
    if (!report.passed) {
      await ledger.record(remote, version, { event: 'refused', why: report.failure! });
      throw new RefusedRelease(remote, version, report, live);
    }
    await ledger.record(remote, version, { event: 'passed', seconds: report.seconds });
  }
  if (options.rollout) return { ...(await startRollout(settings, remote, version, live!, options.rollout)), report };
  const change = await switchTo(settings, remote, version, [{ version, event: { event: 'live', how: 'promote' } }]);
  return { ...change!, report };
}

/** The first stage of a rollout: `version` serves the first share of visitors, `current` the others. */
async function startRollout(
  settings: ReleaseSettings,
  remote: RemoteName,
  version: string,
  current: string,
  { stages, stageMinutes, experiment }: RolloutPlan,
) {
  const now = new Date().toISOString();
  const rollout: Rollout = {
    remote,
    version,
    entry: versionEntryUrl(remote, version, settings.remotesBaseUrl),
    current,
    stages,
    stage: 0,
    stageMinutes,
    stageSince: now,
    pausedMs: 0,
    startedAt: now,
    startedBy: operator(),
    ...(experiment && { experiment }),
  };
  const started = await ledgerOf(settings).changeRollout(remote, (under) => (under ? undefined : rollout), [
    { version, event: { event: 'rollout-started', current, stages, stageMinutes, ...(experiment && { experiment }) } },
  ]);
  if (!started) await refuseDuringRollout(settings, remote);
  const dir = versionsDir(settings, remote);
  const manifest = await ledgerOf(settings).manifest();
  return {
    remote,
    from: current,
    to: version,
    entry: rollout.entry,
    changes: comparedBuilds(join(dir, current), join(dir, version)),
    missing: remoteNames.filter((name) => !manifest[name]).map((name) => remotes[name].folder),
    rollout,
  };
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
    async () => {
      // Before the build: a release that could not go live is not worth building.
      await refuseDuringRollout(settings, remote);
      return promoteLocked(settings, remote, await publishBuild(settings, remote, options), options);
    },
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
    await refuseDuringRollout(settings, remote);
    if (version !== undefined) await requirePublished(settings, remote, version);
    const [live, records] = [await ledger.liveVersion(remote), await ledger.records(remote)];
    const target = version ?? versionLiveBefore(records, live);
    if (!target) {
      throw new ReleaseError(
        `${remotes[remote].folder} has no version that was live before ${live ?? 'now'} and may go live again ` +
          `(refused, unchecked and rolled-back versions are passed over): name one with --force --reason.`,
      );
    }
    if (!options.force && !mayGoLiveAgain(records, target)) {
      throw new ReleaseError(
        `${remotes[remote].folder} ${target} may not go live: ${verdictOf(records, target)}. ` +
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

/** `pnpm releases <remote>`: every published version, oldest first, its verdict, and which one is live. */
export async function releases(settings: ReleaseSettings, remote: RemoteName) {
  const ledger = ledgerOf(settings);
  const live = await ledger.liveVersion(remote);
  const records = await ledger.records(remote);
  const rollout = (await ledger.rollouts())[remote];
  const underWay = releaseUnderWay(settings, remote);
  return (await ledger.versions(remote)).map((version) => ({
    version,
    live: version === live,
    /** The share of visitors it serves as a rollout's canary. */
    canary: rollout?.version === version ? shareOf(rollout) : undefined,
    /** Whether that rollout is an experiment. */
    experiment: rollout?.version === version && rollout.experiment !== undefined,
    verdict: historyOf(records, version, underWay, { stages: false }).join('; '),
    history: historyOf(records, version, underWay),
  }));
}

import { remotes, type RemoteName } from '@gift/federation';
import { ReleaseError } from './ledger.ts';
import { ledgerOf, oneReleaseAtATime, type ReleaseSettings } from './switches.ts';
import { advanced, paused, resumed, shareOf, type Rollout } from './rollouts.ts';

/**
 * The steps of a staged rollout, as `pnpm rollout` and the release watch take them: pause, resume, advance (to the
 * next share, or live for everyone after the last one), complete (live for everyone now), abort (everyone back on the
 * current version). Each is one change of the ledger under the remote's release lock, and only while the rollout is
 * still the one the step was decided on (the same version at the same stage): another server's watch, or an
 * operator, may have moved it first.
 */

export type RolloutAction = 'pause' | 'resume' | 'advance' | 'complete' | 'abort';
export const rolloutActions: RolloutAction[] = ['pause', 'resume', 'advance', 'complete', 'abort'];

export interface RolloutStep {
  remote: RemoteName;
  /** What was done: `advance` past the last stage completes. */
  done: 'paused' | 'resumed' | 'advanced' | 'completed' | 'aborted';
  before: Rollout;
  /** The rollout after a pause, a resume or an advance. */
  after?: Rollout;
}

const sameStage = (a: Rollout | undefined, b: Rollout) =>
  a !== undefined && a.version === b.version && a.stage === b.stage && a.pausedAt === b.pausedAt;

export async function stepRollout(
  settings: ReleaseSettings,
  remote: RemoteName,
  action: RolloutAction,
  {
    why = 'by hand',
    by = 'operator',
    decidedOn,
    now = () => new Date(),
  }: {
    /** Recorded with an advance or an abort: the figures, or the operator's reason. */
    why?: string;
    by?: 'watch' | 'operator';
    /** The rollout the step was decided on: nothing is done unless it is still the one under way. */
    decidedOn?: Rollout;
    now?: () => Date;
  } = {},
): Promise<RolloutStep | undefined> {
  return oneReleaseAtATime(settings, remote, async () => {
    const ledger = ledgerOf(settings);
    const before = (await ledger.rollouts())[remote];
    if (decidedOn && !sameStage(before, decidedOn)) return undefined;
    if (!before) throw new ReleaseError(`${remotes[remote].folder} has no rollout under way.`);
    if (before.experiment && (action === 'advance' || action === 'complete')) {
      // An experiment ends by a person's decision on its figures: shipped with the checks, or stopped.
      const folder = remotes[remote].folder;
      throw new ReleaseError(
        `${folder} ${before.version} is an experiment: it is not advanced. pnpm experiment ${folder} ship makes it ` +
          `live for everyone (with the checks) once it converts more; pnpm experiment ${folder} stop ends it.`,
      );
    }
    const at = now();
    const share = shareOf(before);
    const version = before.version;
    /** Changes the rollout only while it is still `before` (checked in the same step as the change). */
    const change = async (after: Rollout | null, event: Parameters<typeof ledger.record>[2]) =>
      ledger.changeRollout(remote, (stored) => (sameStage(stored, before) ? after : undefined), [{ version, event }]);

    if (action === 'pause' || action === 'resume') {
      if (action === 'pause' ? before.pausedAt : !before.pausedAt) {
        throw new ReleaseError(
          `The rollout of ${remotes[remote].folder} ${version} is ${before.pausedAt ? 'paused' : 'running'} already.`,
        );
      }
      const after = action === 'pause' ? paused(before, at) : resumed(before, at);
      const changed = await change(after, { event: action === 'pause' ? 'rollout-paused' : 'rollout-resumed', share });
      return changed && { remote, done: action === 'pause' ? 'paused' : 'resumed', before, after };
    }
    if (action === 'abort') {
      const changed = await change(null, { event: 'rollout-aborted', share, why, by });
      return changed && { remote, done: 'aborted', before };
    }
    const next = action === 'advance' ? advanced(before, at) : undefined;
    if (next) {
      const changed = await change(next, { event: 'rollout-advanced', share: shareOf(next), why, by });
      return changed && { remote, done: 'advanced', before, after: next };
    }
    // The last stage, or complete: the canary is live for everyone, and the rollout ends in the same step.
    const switched = await ledger.switchTo(
      remote,
      version,
      [
        { version, event: { event: 'rollout-advanced', share: 100, why, by } },
        { version, event: { event: 'live', how: 'rollout' } },
      ],
      before.current,
      before,
    );
    return switched && { remote, done: 'completed', before };
  });
}

/**
 * Removes a remote's rollout entry that is not a rollout (`invalidRollouts`), under the release lock: what
 * `pnpm rollout <remote> abort` does when there is no rollout to abort but such an entry. Resolves with why it was not
 * one, or undefined when there was none.
 */
export async function removeInvalidRollout(settings: ReleaseSettings, remote: RemoteName) {
  return oneReleaseAtATime(settings, remote, async () => {
    const ledger = ledgerOf(settings);
    const problem = (await ledger.invalidRollouts())[remote];
    if (!problem) return undefined;
    await ledger.changeRollout(remote, (stored) => (stored ? undefined : null), []);
    return problem;
  });
}

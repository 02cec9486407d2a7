import type { FastifyBaseLogger } from 'fastify';
import { siteEvents } from '../metrics/events.ts';
import {
  countsLine,
  defaultRule,
  experimentSampleRatio,
  experimentTotals,
  judgeRollout,
  queueRolloutWebhook,
  type DecisionRule,
  type Db,
} from 'api/commands';
import { remoteNames, remotes } from '@gift/federation';
import { ledgerOf, type ReleaseSettings } from '../ledger/switches.ts';
import { stepRollout, type RolloutStep } from '../ledger/rollout-steps.ts';
import { experimentOf, judgedOver, shareOf, stageIsDue, testIdOf } from '../ledger/rollouts.ts';

/**
 * The rollouts' decisions, taken by the release watch at each look: the canary's counted figures since its stage
 * began beside the current version's over the same hours and routes (the API's `judgeRollout`). Worse: abort, at
 * once, whatever the stage's time. Not worse with enough data, once the stage has run its time: advance (after the
 * last stage, live for everyone). Otherwise wait. A paused rollout is still aborted when worse, never advanced.
 * Each step is taken once, whichever server decides first (`stepRollout` changes only the stage it was decided on).
 * A sample ratio mismatch (the arms' sizes are not the split's: ../../api/src/judge/sample-ratio.ts) holds a rollout at
 * its stage, logged once and in `site_rollout_sample_ratio_mismatch`; it is still aborted when worse.
 * An experiment is judged alike on its guardrails (worse: stopped, everyone on the current version) and never
 * advanced: its figures on conversions inform a person, who ships or stops it (`pnpm experiment`).
 */

export interface RolloutWatchOptions {
  settings: ReleaseSettings;
  db: Db;
  log: FastifyBaseLogger;
  rule?: DecisionRule;
  /** Whether each step is told to WEBHOOK_URL. */
  webhooks: boolean;
  now?: () => Date;
}

/** Invalid entries already logged, once each (by remote and what is wrong), for as long as the process runs. */
const reported = new Set<string>();
/** Rollouts whose sample ratio mismatch was logged (once each, by their test's id). */
const mismatched = new Set<string>();

/** One look at every rollout under way: resolves with the steps taken. */
export async function watchRollouts({
  settings,
  db,
  log,
  rule = defaultRule,
  webhooks,
  now = () => new Date(),
}: RolloutWatchOptions): Promise<RolloutStep[]> {
  const taken: RolloutStep[] = [];
  const ledger = ledgerOf(settings);
  const rollouts = await ledger.rollouts();
  for (const [remote, problem] of Object.entries(await ledger.invalidRollouts())) {
    if (reported.has(`${remote}\u0000${problem}`)) continue;
    reported.add(`${remote}\u0000${problem}`);
    log.warn({ remote, problem }, 'rollout entry passed over: not a rollout; the other remotes are judged as before');
  }
  for (const remote of remoteNames) {
    const rollout = rollouts[remote];
    if (!rollout) continue;
    const judged = await judgeRollout(db, judgedOver(rollout), rule, now);
    const { decision } = judged;
    const folder = remotes[remote].folder;
    // An experiment's check reads its days (a person's decision); a rollout's, its stage.
    const experiment = rollout.experiment && experimentOf(rollout);
    const ratio = experiment ? await experimentSampleRatio(db, experiment, { now }) : judged.sampleRatio;
    siteEvents.sampleRatio({ remote: folder, mismatch: ratio.mismatch });
    if (experiment) {
      siteEvents.experiment({
        remote: folder,
        goal: experiment.goal,
        ...(await experimentTotals(db, experiment, now)),
      });
    }
    if (ratio.mismatch && !mismatched.has(testIdOf(rollout))) {
      mismatched.add(testIdOf(rollout));
      log.warn(
        { remote: folder, version: rollout.version, current: rollout.current, why: ratio.why },
        'sample ratio mismatch: the rollout is held (not advanced) until someone finds why',
      );
    }
    const action =
      decision.verdict === 'roll back'
        ? 'abort'
        : decision.verdict === 'keep' && !rollout.experiment && !ratio.mismatch && stageIsDue(rollout, now())
          ? 'advance'
          : undefined;
    if (!action) {
      siteEvents.verdict({ remote: remotes[remote].folder, kind: 'waiting' });
      continue;
    }
    const why =
      action === 'abort'
        ? decision.why
        : `${decision.why} (canary: ${countsLine(judged.canary)}; current: ${countsLine(judged.current)})`;
    const step = await stepRollout(settings, remote, action, { why, by: 'watch', decidedOn: rollout, now });
    if (!step) continue;
    siteEvents.verdict({ remote: folder, kind: action === 'abort' ? 'aborted' : 'advanced' });
    const share = step.after ? shareOf(step.after) : step.done === 'completed' ? 100 : shareOf(rollout);
    log[action === 'abort' ? 'warn' : 'info'](
      { remote: folder, version: rollout.version, current: rollout.current, share, why },
      `rollout ${step.done} by the watch`,
    );
    if (webhooks) {
      await queueRolloutWebhook(
        db,
        step.done === 'aborted'
          ? 'rollout.aborted'
          : step.done === 'completed'
            ? 'rollout.completed'
            : 'rollout.advanced',
        { remote: folder, version: rollout.version, current: rollout.current, share, reason: why },
        now(),
      );
    }
    taken.push(step);
  }
  return taken;
}

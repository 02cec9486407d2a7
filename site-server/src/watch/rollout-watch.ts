import type { FastifyBaseLogger } from 'fastify';
import { siteEvents } from '../metrics/events.ts';
import { countsLine, defaultRule, judgeRollout, queueRolloutWebhook, type DecisionRule, type Db } from 'api/commands';
import { remoteNames, remotes } from '@gift/federation';
import { ledgerOf, type ReleaseSettings } from '../ledger/switches.ts';
import { stepRollout, type RolloutStep } from '../ledger/rollout-steps.ts';
import { judgedOver, shareOf, stageIsDue } from '../ledger/rollouts.ts';

/**
 * The rollouts' decisions, taken by the release watch at each look: the canary's counted figures since its stage
 * began beside the current version's over the same hours and routes (the API's `judgeRollout`). Worse: abort, at
 * once, whatever the stage's time. Not worse with enough data, once the stage has run its time: advance (after the
 * last stage, live for everyone). Otherwise wait. A paused rollout is still aborted when worse, never advanced.
 * Each step is taken once, whichever server decides first (`stepRollout` changes only the stage it was decided on).
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
    const action =
      decision.verdict === 'roll back'
        ? 'abort'
        : decision.verdict === 'keep' && !rollout.experiment && stageIsDue(rollout, now())
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
    const folder = remotes[remote].folder;
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

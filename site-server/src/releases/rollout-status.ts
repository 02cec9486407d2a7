import type { Decision, SampleRatio, VersionFigures } from 'api/commands';
import { countsLine } from 'api/commands';
import { remotes } from '@gift/federation';
import { shareOf, stageElapsedMs, stageIsDue, type Rollout } from '../ledger/rollouts.ts';

/** Minutes and seconds: "7m05s". */
const duration = (ms: number) => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
};

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const figuresLine = (figures: VersionFigures) =>
  [
    countsLine(figures),
    ...(figures.views ? [`error rate ${((figures.errorViews / figures.views) * 100).toFixed(1)}% of views`] : []),
    ...(figures.inpP75 !== undefined ? [`p75 INP ${Math.round(figures.inpP75)} ms`] : []),
    ...(figures.lcpP75 !== undefined ? [`p75 LCP ${Math.round(figures.lcpP75)} ms`] : []),
  ].join(', ');

/**
 * A rollout as `pnpm releases` and `pnpm rollout <remote> status` print it: its stage and share, the time in the
 * stage, each cohort's figures over the same hours, and what the next decision waits for.
 */
export function rolloutLines(
  rollout: Rollout,
  now: Date,
  judged?: { canary: VersionFigures; current: VersionFigures; decision: Decision; sampleRatio: SampleRatio },
): string[] {
  const folder = remotes[rollout.remote].folder;
  const share = shareOf(rollout);
  const next = rollout.stages[rollout.stage + 1];
  const stages = rollout.stages.map((stage, index) => (index === rollout.stage ? `[${stage}%]` : `${stage}%`));
  const elapsed = stageElapsedMs(rollout, now);
  const left = rollout.stageMinutes * 60_000 - elapsed;
  const lines = [
    `  rollout of ${rollout.version}: ${share}% of visitors, stage ${rollout.stage + 1} of ${rollout.stages.length} ` +
      `(${stages.join(' -> ')}), ${duration(elapsed)} in a stage of ${duration(rollout.stageMinutes * 60_000)}` +
      `${rollout.pausedAt ? `, paused since ${utc(rollout.pausedAt)}` : ''}; ${rollout.current} keeps the others ` +
      `(started ${utc(rollout.startedAt)} by ${rollout.startedBy})`,
  ];
  const onward = next === 100 ? 'go live for everyone' : `advance to ${next}%`;
  if (!judged) {
    lines.push(
      `    no field data here to judge it by: pnpm rollout ${folder} advance|complete|abort decides by hand (pause|resume holds it)`,
    );
    return lines;
  }
  lines.push(`    canary  ${rollout.version}: ${figuresLine(judged.canary)}`);
  lines.push(`    current ${rollout.current}: ${figuresLine(judged.current)} (same hours, same routes)`);
  lines.push(`    sample ratio: ${judged.sampleRatio.why}`);
  const { verdict, why } = judged.decision;
  let decision: string;
  if (verdict === 'roll back') decision = `abort at the watch's next look: ${why}`;
  else if (judged.sampleRatio.mismatch) {
    decision =
      `held at ${share}%: the arms are not the sizes the split says, so no figure of theirs can be trusted; find why ` +
      `(a cache, a page that loses its beacon on one version), then pnpm rollout ${folder} abort, or advance --reason`;
  } else if (rollout.pausedAt) {
    decision = `paused: nothing advances until pnpm rollout ${folder} resume (it is still aborted if its figures turn worse)`;
  } else if (verdict === 'wait') {
    decision = `${why}${left > 0 ? `; the stage has ${duration(left)} left` : '; the stage has run its time'}`;
  } else if (stageIsDue(rollout, now)) decision = `${onward} at the watch's next look: ${why}`;
  else decision = `${onward} in ${duration(left)} unless its figures turn worse (now: ${why})`;
  lines.push(`    next: ${decision}`);
  return lines;
}

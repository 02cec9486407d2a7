import { judgeExperimentOver, judgeRollout, printable, remoteGoals, type DecisionRule, type Db } from 'api/commands';
import { remotes, type RemoteName } from '@gift/federation';
import { ledgerOf } from '../ledger/switches.ts';
import { stepRollout } from '../ledger/rollout-steps.ts';
import { experimentOf, judgedOver, maxExperimentDays, type Rollout } from '../ledger/rollouts.ts';
import { experimentLines } from './experiment-status.ts';
import { ReleaseError, RefusedRelease, promote, type Promotion, type ReleaseSettings } from './release.ts';

/**
 * `pnpm experiment <remote> start <version> [--share 50] [--goal <goal>] [--days 14] [--force --reason "<why>"]`: the
 *   version serves a share of visitors (a rollout's cohort cookie: a visitor stays in one arm), after the release checks
 *   (or without them, forced, the reason recorded), for the days planned;
 * `pnpm experiment <remote> status`: each arm's figures, the difference, the decision so far, the guardrails;
 * `pnpm experiment <remote> stop [--reason "<why>"]`: everyone on the current version;
 * `pnpm experiment <remote> ship`: once the new version converts more, it goes live for everyone through a promote
 *   with its checks.
 * Each step is in the ledger with who took it (the experiment is a rollout marked as one: PostgreSQL or the rollouts
 * file, which every site server follows).
 */

export interface ExperimentDeps {
  settings: () => Promise<ReleaseSettings>;
  /** The site's field data, where the API keeps it; undefined when there is none here. */
  fieldDataDb: () => Promise<Db | undefined>;
  rule: DecisionRule;
  printSwitch: (change: Promotion) => void;
  log: (line: string) => void;
  /** The promote that starts and ships an experiment, with the release checks (a unit test's skips them). */
  promote?: typeof promote;
}

export interface ExperimentValues {
  share?: string;
  goal?: string;
  days?: string;
  /** With start: its release checks skipped, for `reason` (recorded, as a forced promote's). */
  force?: boolean;
  /** With stop: why; with start --force: why the checks are skipped. */
  reason?: string;
}

const actions = ['start', 'status', 'stop', 'ship'] as const;

/** A whole number within bounds, or the refusal that names the option. */
function whole(text: string, option: string, low: number, high: number, example: string) {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < low || value > high) {
    throw new ReleaseError(`--${option} takes a whole number from ${low} to ${high} (${example}), not "${text}".`);
  }
  return value;
}

/** The goal an experiment on `remote` counts: `--goal`, one of its pages' goals, or its pages' only one. */
function goalOf(remote: RemoteName, asked: string | undefined) {
  const folder = remotes[remote].folder;
  const goals = remoteGoals(remote);
  if (!goals.length) {
    throw new ReleaseError(
      `${folder}'s pages have no goal to count (see packages/content/src/goals.ts): an experiment on them has nothing ` +
        'to judge. A rollout (pnpm promote --stages) judges a version on errors and speed.',
    );
  }
  if (asked === undefined) return goals[0]!;
  if (!goals.includes(asked as (typeof goals)[number])) {
    throw new ReleaseError(`--goal: ${folder}'s pages have ${goals.join(', ')}; not "${asked}".`);
  }
  return asked;
}

export async function experimentCommand(
  remote: RemoteName,
  action: string | undefined,
  version: string | undefined,
  values: ExperimentValues,
  deps: ExperimentDeps,
) {
  const folder = remotes[remote].folder;
  if (!actions.includes(action as (typeof actions)[number])) {
    throw new ReleaseError(`pnpm experiment ${folder} takes ${actions.join(', ')}; not "${action ?? ''}".`);
  }
  const given = (Object.keys(values) as (keyof ExperimentValues)[]).filter((key) => values[key] !== undefined);
  const allowedWith: Record<string, (keyof ExperimentValues)[]> = {
    start: ['share', 'goal', 'days', 'force', 'reason'],
    stop: ['reason'],
  };
  const allowed = allowedWith[action!] ?? [];
  const stray = given.find((key) => !allowed.includes(key));
  if (stray) throw new ReleaseError(`--${stray} does not go with pnpm experiment ${folder} ${action}.`);
  if (version !== undefined && action !== 'start') {
    throw new ReleaseError(`pnpm experiment ${folder} ${action} takes no version: it is the experiment's.`);
  }
  if (action === 'start') {
    if (!version) throw new ReleaseError(`Name the version to try: see pnpm releases ${folder}.`);
    const share = whole(values.share ?? '50', 'share', 1, 99, '50');
    const days = whole(values.days ?? '14', 'days', 1, maxExperimentDays, '14');
    const goal = goalOf(remote, values.goal);
    if (Boolean(values.force) !== Boolean(values.reason?.trim())) {
      throw new ReleaseError('--force goes with --reason "<why the checks are skipped>", and --reason with --force.');
    }
    const settings = await deps.settings();
    deps.printSwitch(
      await (deps.promote ?? promote)(settings, remote, version, {
        rollout: { stages: [share, 100], stageMinutes: days * 24 * 60, experiment: { goal, days } },
        force: values.force ? { reason: values.reason!.trim() } : undefined,
        log: deps.log,
      }),
    );
    return;
  }

  const settings = await deps.settings();
  const rollout = (await ledgerOf(settings).rollouts())[remote];
  if (!rollout?.experiment) {
    if (action === 'status') {
      deps.log(
        `${folder}: no experiment under way${rollout ? ` (a rollout of ${printable(rollout.version)} is)` : ''}`,
      );
      return;
    }
    throw new ReleaseError(
      `${folder} has no experiment under way${rollout ? `: a rollout of ${rollout.version} is (pnpm rollout ${folder})` : ''}.`,
    );
  }

  if (action === 'status') {
    for (const line of await experimentStatus(rollout, deps)) deps.log(printable(line));
    return;
  }
  if (action === 'stop') {
    const why = values.reason?.trim() ? `experiment stopped: ${values.reason.trim()}` : 'experiment stopped';
    const step = await stepRollout(settings, remote, 'abort', { why, decidedOn: rollout });
    if (!step)
      throw new ReleaseError(`The experiment on ${folder} changed meanwhile: see pnpm experiment ${folder} status.`);
    deps.log(`${folder}: the experiment is over; every visitor has ${printable(rollout.current)} again`);
    return;
  }

  // ship: only the version that converts more, and only through the checks.
  const db = await deps.fieldDataDb();
  if (!db) throw new ReleaseError(noFieldData);
  const verdict = await judge(db, rollout, deps.rule);
  if (verdict.sampleRatio.mismatch) {
    throw new ReleaseError(
      `Not shipped: the arms are not the sizes the split says, so their conversions cannot be compared.\n` +
        `  sample ratio: ${verdict.sampleRatio.why}\n` +
        `Find why (a cache, a page that loses its beacon on one version, crawlers), then stop it: ` +
        `pnpm experiment ${folder} stop.`,
    );
  }
  if (verdict.decision !== 'new version converts more') {
    throw new ReleaseError(
      `Not shipped: ${verdict.why}.\n` +
        (verdict.decision === 'current converts more' || verdict.decision === 'no difference shown'
          ? `pnpm experiment ${folder} stop keeps ${rollout.current} for everyone.`
          : `Look again later (pnpm experiment ${folder} status), or stop it.`),
    );
  }
  const step = await stepRollout(settings, remote, 'abort', {
    why: `experiment shipped: ${verdict.why}`,
    decidedOn: rollout,
  });
  if (!step)
    throw new ReleaseError(`The experiment on ${folder} changed meanwhile: see pnpm experiment ${folder} status.`);
  deps.log(`${folder}: the experiment is over (${verdict.why});`);
  deps.log(
    `  ${printable(rollout.version)} goes live for everyone once its checks pass, ${printable(rollout.current)} until then`,
  );
  try {
    deps.printSwitch(await (deps.promote ?? promote)(settings, remote, rollout.version, { log: deps.log }));
  } catch (error) {
    if (!(error instanceof RefusedRelease)) throw error;
    throw new ReleaseError(
      `${error.message}\nThe experiment is over: every visitor has ${rollout.current}, as before it.`,
    );
  }
}

const noFieldData =
  'No field data here to judge the experiment by: run this where the API keeps it (DATABASE_URL, or DATA_DIR with its ' +
  'SQLite file).';

function judge(db: Db, rollout: Rollout, rule: DecisionRule) {
  return judgeExperimentOver(db, experimentOf(rollout), { maxPerNetwork: rule.maxPerNetwork });
}

/** An experiment's lines, with its figures when the site's field data is here to read. */
export async function experimentStatus(rollout: Rollout, deps: Pick<ExperimentDeps, 'fieldDataDb' | 'rule'>) {
  const db = await deps.fieldDataDb();
  if (!db) return experimentLines(rollout, new Date());
  const verdict = await judge(db, rollout, deps.rule);
  const { decision: guardrails } = await judgeRollout(db, judgedOver(rollout), deps.rule);
  return experimentLines(rollout, new Date(), { verdict, guardrails });
}

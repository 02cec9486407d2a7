import type { Decision, ExperimentVerdict, SampleRatio } from 'api/commands';
import { remotes } from '@gift/federation';
import { shareOf, type Rollout } from '../ledger/rollouts.ts';

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const percent = (rate: number) => `${(rate * 100).toFixed(2)}%`;
const count = (value: number) => value.toLocaleString('en-US');

/** What each arm brought, as a table's rows under its heading. */
function armRows(rollout: Rollout, verdict: ExperimentVerdict) {
  const rows = [
    ['arm', 'version', 'views', 'networks', 'conversions', 'rate', 'interval (95%, valid at every look)'],
    ...(
      [
        ['current', rollout.current, verdict.current],
        [`new (${shareOf(rollout)}%)`, rollout.version, verdict.next],
      ] as const
    ).map(([arm, version, figures]) => [
      arm,
      version,
      count(figures.views),
      count(figures.networks),
      count(figures.conversions),
      percent(figures.rate),
      `${percent(figures.low)} to ${percent(figures.high)}`,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => `    ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd());
}

/**
 * An experiment as `pnpm experiment <remote> status` and `pnpm releases` print it: its arms, each with its views,
 * networks, conversions and rate with its interval; the difference with its interval and the decision so far; the
 * release judge's guardrails; and what to do next.
 */
export function experimentLines(
  rollout: Rollout,
  now: Date,
  judged?: { verdict: ExperimentVerdict & { sampleRatio: SampleRatio }; guardrails: Decision },
): string[] {
  const folder = remotes[rollout.remote].folder;
  const { goal, days } = rollout.experiment!;
  const day = Math.min(days, Math.floor((now.getTime() - Date.parse(rollout.startedAt)) / 86_400_000) + 1);
  const lines = [
    `  experiment: ${rollout.version} serves ${shareOf(rollout)}% of visitors, ${rollout.current} the others; goal ` +
      `${goal}; day ${day} of ${days} (started ${utc(rollout.startedAt)} by ${rollout.startedBy})`,
  ];
  if (!judged) {
    lines.push(
      `    no field data here to judge it by: run this where the API's database is (DATABASE_URL or DATA_DIR)`,
    );
    return lines;
  }
  const { verdict, guardrails } = judged;
  lines.push(...armRows(rollout, verdict));
  lines.push(`    sample ratio: ${verdict.sampleRatio.why}`);
  lines.push(`    decision so far: ${verdict.why}`);
  lines.push(
    guardrails.verdict === 'roll back'
      ? `    guardrails (errors, INP, LCP): worse, the release watch stops it at its next look: ${guardrails.why}`
      : `    guardrails (errors, INP, LCP): ${guardrails.why}`,
  );
  const next = {
    'new version converts more': `pnpm experiment ${folder} ship makes ${rollout.version} live for everyone, with the checks`,
    'current converts more': `pnpm experiment ${folder} stop keeps ${rollout.current} for everyone`,
    'no difference shown': `the days planned are over: pnpm experiment ${folder} stop keeps ${rollout.current}`,
    continue: `look again later (the interval holds at every look); ${days - day + 1} of ${days} days left`,
  }[verdict.decision];
  lines.push(
    `    next: ${
      verdict.sampleRatio.mismatch
        ? `find why the arms are not the split's sizes; ship is refused meanwhile (pnpm experiment ${folder} stop ends it)`
        : next
    }`,
  );
  return lines;
}

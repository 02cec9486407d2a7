import { defaultExperimentSettings as settings } from '../src/judge/experiment.ts';
import {
  defaultExperimentPlan as plan,
  defaultExperimentTraffic as traffic,
  simulateExperimentRow,
  type ExperimentRow,
} from '../src/judge/simulate-experiment.ts';

/**
 * `pnpm simulate:experiment`: the experiment judge's error rates on generated traffic, a row per scenario, each from
 * SIM_RUNS (1,000) seeded runs through the same `judgeExperiment` that `pnpm experiment <remote> status` calls, looked
 * at daily for 14 days (SIM_LOOKS_PER_DAY looks a day instead: the test allows any number); SIM_ADVERSARY_RUNS (300)
 * for the adversary's rows (each is four runs: one without it, one per way it plays). Prints the table and exits 1
 * when a row is past its limit: equal versions declared different in over 5% of runs, or, with an adversary of 3
 * networks or fewer, a false win in over 5%.
 */
const runs = Number(process.env.SIM_RUNS ?? 1000);
const adversaryRuns = Number(process.env.SIM_ADVERSARY_RUNS ?? 300);
const first = Number(process.env.SIM_SEED ?? 1);
const looksPerDay = Number(process.env.SIM_LOOKS_PER_DAY ?? plan.looksPerDay);
const adversaries = (process.env.SIM_ADVERSARY ?? '1,2,3').split(',').map(Number);
const daily = { ...plan, looksPerDay };

const share = (count: number | undefined, of: number) =>
  `${(count ?? 0).toLocaleString('en-US')} of ${of.toLocaleString('en-US')} (${Number((((count ?? 0) / of) * 100).toFixed(1))}%)`;
const wins = (row: ExperimentRow) => row.decisions['new version converts more'] ?? 0;
const losses = (row: ExperimentRow) => row.decisions['current converts more'] ?? 0;
const needed = (row: ExperimentRow) =>
  row.medianViews
    ? `, median ${row.medianViews.toLocaleString('en-US')} views (day ${row.medianDay}) when decided`
    : '';

const started = Date.now();
let failed = false;
function print(row: ExperimentRow, says: string, ok = true) {
  failed ||= !ok;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${row.row}: ${says} (${row.runs} runs, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
}

console.log(
  `Experiment: ${traffic.viewsPerDay.toLocaleString('en-US')} views a day, ${traffic.share}% on the new version, ` +
    `conversion ${traffic.baseRate * 100}% on the current one, ${looksPerDay} look(s) a day for ${plan.days} days; ` +
    `mSPRT at alpha ${settings.alpha}, mixture sd ${settings.mixtureSd * 100} pp, ${settings.setAside} networks set ` +
    `aside on each arm, a network weighed at most ${settings.networkWeight} views.\n`,
);

const equal = simulateExperimentRow('equal versions', runs, traffic, daily, settings, { seed: first });
print(
  equal,
  `declared different ${share(wins(equal) + losses(equal), runs)}: false wins ${wins(equal)}, false losses ${losses(equal)}`,
  (wins(equal) + losses(equal)) / runs <= 0.05,
);
for (const lift of [0.2, -0.2, 0.1]) {
  const row = simulateExperimentRow(
    `new version ${lift > 0 ? '+' : ''}${lift * 100}%`,
    runs,
    { ...traffic, lift },
    daily,
    settings,
    {
      seed: first,
    },
  );
  const right = lift > 0 ? wins(row) : losses(row);
  const wrong = lift > 0 ? losses(row) : wins(row);
  print(row, `found ${share(right, runs)}, the wrong way ${wrong}${needed(row)}`);
}
for (const k of adversaries) {
  for (const lift of [0, 0.2]) {
    const row = simulateExperimentRow(
      `adversary of ${k} networks, ${lift ? 'new version +20%' : 'equal versions'}`,
      adversaryRuns,
      { ...traffic, lift },
      daily,
      settings,
      { seed: first, adversaryNetworks: k },
    );
    const attackedWins = (row.changes ?? []).filter((change) => change.with === 'new version converts more');
    const falseWins = lift ? 0 : new Set(attackedWins.map((change) => change.seed)).size + wins(row);
    const seeds = [...new Set((row.changes ?? []).map((change) => change.seed))].slice(0, 10).join(', ');
    print(
      row,
      `decisions changed ${share(row.changed, adversaryRuns)}${seeds ? ` (seeds ${seeds})` : ''}` +
        (lift ? '' : `; false wins with it at its best ${share(falseWins, adversaryRuns)}`),
      lift ? true : falseWins / adversaryRuns <= 0.05,
    );
  }
}
process.exitCode = failed ? 1 : 0;

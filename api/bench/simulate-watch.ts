import { defaultPlan, defaultTraffic, type Plan, type Row, type Traffic } from '../src/judge/simulate.ts';
import { simulatorPool } from './simulate-pool.ts';

/**
 * `pnpm simulate:watch`: the release judge's error rates on generated traffic, a row per scenario, each from SIM_RUNS
 * (2,000) seeded runs through the same `judge` the watch calls (SIM_ADVERSARY_RUNS for the adversary's rows, as many
 * by default: each is five runs, one without it and one per way it plays); SIM_ADVERSARY the adversary's networks (1,2,3), then
 * a search for the smallest that changes any outcome (SIM_SEARCH_RUNS runs each, 200). Prints the table and exits 1
 * when a row is past its limit: wrong aborts or rollbacks of equal versions above 1%, any outcome changed by an
 * adversary of 3 networks or fewer, a bad canary aborted in under 95% of runs, a good one advanced on time in under 95%.
 * The runs share SIM_WORKERS threads (the machine's cores by default); the table is the same with any number.
 */
const runs = Number(process.env.SIM_RUNS ?? 2000);
const adversaryRuns = Number(process.env.SIM_ADVERSARY_RUNS ?? runs);
const searchRuns = Number(process.env.SIM_SEARCH_RUNS ?? 200);
/** The first seed of every row (1): SIM_SEED=1234 SIM_RUNS=1 runs that one run again. */
const first = Number(process.env.SIM_SEED ?? 1);
const adversaries = (process.env.SIM_ADVERSARY ?? '1,2,3').split(',').map(Number);

const equal = defaultTraffic;
const worseErrors: Traffic = { ...defaultTraffic, canaryExtraErrors: 0.03 };
const slower: Traffic = { ...defaultTraffic, canarySlower: 1.5 };
const promote: Plan = { ...defaultPlan, kind: 'promote' };

const pool = simulatorPool();
/** "1 of 2,000 (0.05%)": the count too, so that one run in 2,000 does not read as 0.1% beside 100.0%. */
const share = (count: number | undefined, of: number) =>
  `${(count ?? 0).toLocaleString('en-US')} of ${of.toLocaleString('en-US')} (${Number((((count ?? 0) / of) * 100).toFixed(2))}%)`;
/** The seeds of the runs an equal row stopped (SIM_SEED and SIM_RUNS=1 run one again), when there are a few. */
const seeds = (row: Row) =>
  row.stoppedSeeds && row.stoppedSeeds.length <= 10 ? ` (seeds ${row.stoppedSeeds.join(', ')})` : '';
const started = Date.now();
const rows: { row: Row; says: string; ok: boolean }[] = [];
function add(row: Row, says: string, ok: boolean) {
  rows.push({ row, says, ok });
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${row.row}: ${says} (${row.runs} runs, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
}

console.log(
  `Plan: stages ${defaultPlan.stages.join(', ')}% of ${defaultTraffic.viewsPerHour.toLocaleString('en-US')} views an hour, ` +
    `${defaultPlan.stageMinutes / 60} h a stage, a look every ${defaultPlan.lookMinutes} min, at most ${defaultPlan.maxHours} h; ` +
    `a promote watched ${defaultPlan.watchMinutes} min against ${defaultPlan.baselineHours} h of the version before. ` +
    `Error rates drawn between 0 and 2% a run; INP and LCP log-normal (medians 120 and 1,800 ms).\n`,
);

const rollouts = await pool.row('equal versions, rollout', runs, equal, defaultPlan, { first });
add(
  rollouts,
  `wrongly aborted ${share(rollouts.ends.aborted, runs)}${seeds(rollouts)}; first stage advanced when due ${share(rollouts.firstStageOnTime, runs)}; completed ${share(rollouts.ends.completed, runs)}`,
  (rollouts.ends.aborted ?? 0) / runs <= 0.01 && (rollouts.firstStageOnTime ?? 0) / runs >= 0.95,
);
const promotes = await pool.row('equal versions, promote', runs, equal, promote, { first });
add(
  promotes,
  `wrongly rolled back ${share(promotes.ends['rolled back'], runs)}${seeds(promotes)}`,
  (promotes.ends['rolled back'] ?? 0) / runs <= 0.01,
);
for (const [name, traffic] of [
  ['bad canary, +3 points of errors', worseErrors],
  ['bad canary, INP and LCP x1.5', slower],
] as const) {
  const row = await pool.row(name, runs, traffic, defaultPlan, { first });
  add(
    row,
    `aborted ${share(row.ends.aborted, runs)}, median ${row.medianViews ?? 0} views from ${row.medianNetworks ?? 0} networks until the abort`,
    (row.ends.aborted ?? 0) / runs >= 0.95,
  );
}
for (const k of adversaries) {
  for (const [name, traffic, plan] of [
    ['equal versions, rollout', equal, defaultPlan],
    ['bad canary, rollout', worseErrors, defaultPlan],
    ['equal versions, promote', equal, promote],
  ] as const) {
    const row = await pool.row(`adversary of ${k} networks, ${name}`, adversaryRuns, traffic, plan, {
      adversaryNetworks: k,
      first,
    });
    const by = Object.entries(row.changedBy ?? {}).map(([strategy, count]) => `${strategy} ${count}`);
    add(row, `outcomes changed ${row.changed ?? 0}${by.length ? ` (${by.join(', ')})` : ''}`, row.changed === 0);
    // Each changed run, to run again with SIM_SEED=<seed> SIM_RUNS=1 and look into.
    for (const change of (row.changes ?? []).slice(0, 20)) {
      console.log(
        `       seed ${change.seed}, ${change.strategy}: ${change.without} without it, ${change.with} with it`,
      );
    }
  }
}
if (searchRuns > 0) {
  let smallest: number | undefined;
  for (const k of [4, 6, 8, 12, 16, 24, 32]) {
    const row = await pool.row(`adversary of ${k}`, searchRuns, equal, defaultPlan, { adversaryNetworks: k, first });
    const bad = await pool.row(`adversary of ${k}`, searchRuns, worseErrors, defaultPlan, {
      adversaryNetworks: k,
      first,
    });
    const changed = (row.changed ?? 0) + (bad.changed ?? 0);
    console.log(`     adversary of ${k} networks: ${changed} of ${2 * searchRuns} outcomes changed`);
    if (changed > 0) {
      smallest = k;
      break;
    }
  }
  console.log(
    `Smallest adversary that changed an outcome: ${smallest ? `${smallest} networks` : 'none up to 32 networks'}`,
  );
}
await pool.close();
process.exitCode = rows.every((row) => row.ok) ? 0 : 1;

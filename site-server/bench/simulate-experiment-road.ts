import { defaultExperimentRoadTraffic, simulateExperimentRoad } from '../src/rollouts/test-experiment-road.ts';

/**
 * `pnpm simulate:experiment-road`: experiments between two builds of the same bytes (and with a real +20% effect in
 * the visitors' behaviour) over the whole road (see `simulateExperimentRoad`), SIM_EXPERIMENT_RUNS runs a row (40).
 * Prints each row as it ends and exits 1 when equal builds are declared different in more than 5% of runs, or the
 * sample ratio check fires in more than 0.1% (so, with fewer than 1,000 runs, in any).
 */
const runs = Number(process.env.SIM_EXPERIMENT_RUNS ?? 40);
const started = Date.now();
const t = defaultExperimentRoadTraffic;
console.log(
  `Each run: an experiment on vendor at 50% for 14 days, a look a day; ${t.newVisitorsPerDay} new visitors a day from ` +
    `${t.networks} networks, a first page converting at ${t.firstRate * 100}%, a later one at ${t.laterRate * 100}% ` +
    `(times 0.5-1.5 by network); ${runs} runs a row.\n`,
);
const rows = await simulateExperimentRoad({
  runs,
  rows: [
    { name: 'A/A: builds of the same bytes', traffic: t },
    { name: 'a real +20% on the new version', traffic: { ...t, lift: 0.2 } },
  ],
  onRow: (row) =>
    console.log(
      `${row.name}: new version declared better in ${row.newWins} of ${row.runs}, current in ${row.currentWins}; ` +
        `sample ratio mismatch in ${row.mismatches}; first views on the new version ${(row.assignedShare * 100).toFixed(1)}%; ` +
        `${row.views} views a run (median) (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    ),
});
const [same] = rows;
const falseRate = (same!.newWins + same!.currentWins) / same!.runs;
const srm = rows.reduce((sum, row) => sum + row.mismatches, 0) / rows.reduce((sum, row) => sum + row.runs, 0);
console.log(
  `\n${falseRate <= 0.05 ? 'ok  ' : 'FAIL'} equal builds declared different in ${(falseRate * 100).toFixed(1)}% of runs (at most 5%)\n` +
    `${srm <= 0.001 ? 'ok  ' : 'FAIL'} sample ratio mismatch in ${(srm * 100).toFixed(2)}% of runs (at most 0.1%)`,
);
process.exitCode = falseRate <= 0.05 && srm <= 0.001 ? 0 : 1;

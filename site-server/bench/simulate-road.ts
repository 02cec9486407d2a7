import { simulateRoad } from '../src/watch/test-road.ts';

/**
 * `pnpm simulate:road`: the release watch's verdicts over the whole road (see `simulateRoad`), SIM_ROAD_RUNS runs a row
 * (25), SIM_ROAD_NETWORKS networks (100), a bad version SIM_ROAD_WORSE more errors (0.1). Prints a row as it ends and
 * exits 1 when a row's wrong verdicts (equal versions rolled back, a bad one kept live) pass 5% of its runs, with or
 * without the adversary.
 */
const runs = Number(process.env.SIM_ROAD_RUNS ?? 25);
const networks = Number(process.env.SIM_ROAD_NETWORKS ?? 100);
const worse = Number(process.env.SIM_ROAD_WORSE ?? 0.1);
const limit = 0.05;
const started = Date.now();
console.log(
  `Each run: legal released on a site server, ${networks} networks visiting the version before twice and the new one 4 times (a look after each round); ${runs} runs a row.\n`,
);
const rows = await simulateRoad({
  runs,
  networks,
  worse,
  onRow: (row) =>
    console.log(
      `${row.wrong / row.runs <= limit ? 'ok  ' : 'FAIL'} ${row.name}: ${row.bad ? 'kept live' : 'rolled back'} in ${row.wrong} of ${row.runs} runs (${((row.wrong / row.runs) * 100).toFixed(1)}%) (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    ),
});
process.exitCode = rows.every((row) => row.wrong / row.runs <= limit) ? 0 : 1;

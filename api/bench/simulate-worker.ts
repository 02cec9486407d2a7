import { parentPort } from 'node:worker_threads';
import { tallyRuns } from '../src/judge/simulate.ts';
import type { Part } from './simulate-pool.ts';

// A thread of the simulator's pool: a part of a row in, its tally out.
parentPort!.on('message', ({ runs, seed, traffic, plan, adversaryNetworks }: Part) => {
  parentPort!.postMessage(tallyRuns(runs, traffic, plan, undefined, { seed, adversaryNetworks }));
});

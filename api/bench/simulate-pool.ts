import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { rowOf, type Plan, type Row, type Tally, type Traffic } from '../src/judge/simulate.ts';

/** A part of a row for a worker: `runs` runs from `seed`. */
export interface Part {
  runs: number;
  seed: number;
  traffic: Traffic;
  plan: Plan;
  adversaryNetworks?: number;
}

/**
 * The simulator's runs on SIM_WORKERS threads (as many as the machine has cores, by default): a row is cut into parts
 * of consecutive seeds, each part runs on whichever thread is free, and the parts' tallies add up to the same row as
 * one thread would make (the same seeds, the same outcomes).
 */
export function simulatorPool(size = Number(process.env.SIM_WORKERS ?? availableParallelism())) {
  const workers = Array.from(
    { length: Math.max(1, size) },
    () => new Worker(new URL('./simulate-worker.mjs', import.meta.url)),
  );
  const idle = [...workers];
  const queue: { part: Part; done: (tally: Tally) => void; failed: (error: Error) => void }[] = [];

  const next = () => {
    while (idle.length && queue.length) {
      const worker = idle.pop()!;
      const { part, done, failed } = queue.shift()!;
      const finish = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        idle.push(worker);
        next();
      };
      const onMessage = (tally: Tally) => (finish(), done(tally));
      const onError = (error: Error) => (finish(), failed(error));
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(part);
    }
  };
  const run = (part: Part) =>
    new Promise<Tally>((done, failed) => {
      queue.push({ part, done, failed });
      next();
    });

  return {
    size: workers.length,
    /** `runs` runs of a row (seeds `first` to `first + runs - 1`), in parts of at most `partRuns`. */
    async row(
      name: string,
      runs: number,
      traffic: Traffic,
      plan: Plan,
      {
        adversaryNetworks,
        partRuns = 25,
        first = 1,
      }: { adversaryNetworks?: number; partRuns?: number; first?: number } = {},
    ): Promise<Row> {
      const parts: Promise<Tally>[] = [];
      for (let seed = first; seed < first + runs; seed += partRuns) {
        parts.push(run({ runs: Math.min(partRuns, first + runs - seed), seed, traffic, plan, adversaryNetworks }));
      }
      return rowOf(name, plan, await Promise.all(parts), adversaryNetworks !== undefined);
    },
    close: () => Promise.all(workers.map((worker) => worker.terminate())),
  };
}

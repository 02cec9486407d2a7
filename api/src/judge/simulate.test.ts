import { describe, expect, it } from 'vitest';
import { judge, type NetworkEvidence } from './judge.ts';
import {
  defaultPlan,
  defaultTraffic,
  rowOf,
  seeded,
  simulateRow,
  simulateRun,
  SortedValues,
  tallyRuns,
} from './simulate.ts';

// The table's limits on a few runs (the full table, 2,000 runs a row: `pnpm simulate:watch`). A run is a day or two of
// traffic judged every ten minutes: about a tenth of a second, more on a busy machine, hence the generous timeout.
describe('the release judge on simulated traffic', { timeout: 300_000 }, () => {
  it('repeats a run from its seed', () => {
    expect(simulateRun(7)).toEqual(simulateRun(7));
  });

  it('completes rollouts of equal versions, each stage advanced when due', () => {
    const row = simulateRow('equal', 12, defaultTraffic, defaultPlan);
    expect(row.ends).toEqual({ completed: 12 });
    expect(row.firstStageOnTime).toBeGreaterThanOrEqual(11);
  });

  it('aborts a canary with three points more errors, and one with INP and LCP half as slow again', () => {
    expect(simulateRow('errors', 6, { ...defaultTraffic, canaryExtraErrors: 0.03 }, defaultPlan).ends).toEqual({
      aborted: 6,
    });
    expect(simulateRow('slower', 6, { ...defaultTraffic, canarySlower: 1.5 }, defaultPlan).ends).toEqual({
      aborted: 6,
    });
  });

  it('lets an adversary with three networks change no outcome of equal versions, whatever it plays', () => {
    const row = simulateRow('adversary', 6, defaultTraffic, defaultPlan, undefined, { adversaryNetworks: 3 });
    expect(row.changed).toBe(0);
  });

  it('rolls back no promote of an equal version, with or without an adversary', () => {
    const promote = { ...defaultPlan, kind: 'promote' as const };
    const row = simulateRow('promote', 10, defaultTraffic, promote, undefined, { adversaryNetworks: 3 });
    expect(row.ends).toEqual({ kept: 10 });
    expect(row.changed).toBe(0);
  });

  it('judges the same with the values kept sorted as they come as with values sorted at each look', () => {
    const random = seeded(11);
    const networks: NetworkEvidence[] = [];
    const kept = { inp: new SortedValues(), lcp: new SortedValues() };
    for (let index = 0; index < 3000; index += 1) {
      const network: NetworkEvidence = { views: 1 + Math.floor(random() * 8), erred: random() < 0.02 ? 1 : 0 };
      if (random() < 0.5) kept.inp.insert((network.inp = Math.round(40 + random() * 400)));
      kept.lcp.insert((network.lcp = Math.round(800 + random() * 3000)));
      networks.push(network);
    }
    const lcps = networks.map((network) => network.lcp!);
    expect([...kept.lcp.sorted]).toEqual(lcps.sort((a, b) => a - b));
    const canary = networks.slice(0, 300);
    const withSorted = Object.assign([...networks], { sorted: { inp: kept.inp.sorted, lcp: kept.lcp.sorted } });
    expect(judge(canary, withSorted)).toEqual(judge(canary, networks));
  });

  it('makes the same row from parts of its runs (as the bench’s threads run them) as from all at once', () => {
    const bad = { ...defaultTraffic, canaryExtraErrors: 0.03 };
    const parts = [
      tallyRuns(2, bad, defaultPlan, undefined, { seed: 1 }),
      tallyRuns(3, bad, defaultPlan, undefined, { seed: 3 }),
    ];
    expect(rowOf('bad', defaultPlan, parts, false)).toEqual(simulateRow('bad', 5, bad, defaultPlan));
  });
});

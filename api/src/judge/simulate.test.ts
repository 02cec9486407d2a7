import { describe, expect, it } from 'vitest';
import { defaultPlan, defaultTraffic, simulateRow, simulateRun } from './simulate.ts';

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
});

import { describe, expect, it } from 'vitest';
import { defaultExperimentSettings, judgeExperiment, mixtureRadius, type NetworkConversions } from './experiment.ts';
import { simulateExperiment, simulateExperimentRow, defaultExperimentTraffic } from './simulate-experiment.ts';

/** `count` networks of `views` views each, the first `converting` of them with one conversion each. */
const networks = (count: number, views: number, converting: number): NetworkConversions[] =>
  Array.from({ length: count }, (_, index) => ({ views, conversions: index < converting ? 1 : 0 }));

describe('the experiment judge', () => {
  it("widens the interval past a fixed-horizon test's, and narrows it as evidence grows", () => {
    const variance = 0.0001;
    const radius = mixtureRadius(variance, 0.008, 0.05);
    expect(radius).toBeGreaterThan(1.96 * Math.sqrt(variance));
    expect(mixtureRadius(variance / 4, 0.008, 0.05)).toBeLessThan(radius);
  });

  it('declares the new version better when its rate is clearly higher, and the current one the other way', () => {
    const low = networks(2000, 2, 80); // 2% of 4,000 views
    const high = networks(2000, 2, 200); // 5%
    const better = judgeExperiment({ current: low, next: high });
    expect(better.decision).toBe('new version converts more');
    expect(better.difference.low).toBeGreaterThan(0);
    expect(better.why).toMatch(/^the new version converts more: \+3\.00 pp \(5\.00% of 4,000 views against 2\.00%/);
    expect(judgeExperiment({ current: high, next: low }).decision).toBe('current converts more');
  });

  it('goes on while the interval holds 0, and ends with no difference at the horizon', () => {
    const evidence = { current: networks(1000, 2, 80), next: networks(1000, 2, 84) };
    const going = judgeExperiment(evidence);
    expect(going.decision).toBe('continue');
    expect(going.difference.low).toBeLessThan(0);
    expect(going.difference.high).toBeGreaterThan(0);
    expect(judgeExperiment(evidence, defaultExperimentSettings, { horizonReached: true }).decision).toBe(
      'no difference shown',
    );
  });

  it('declares nothing before it has a few conversions', () => {
    const verdict = judgeExperiment({ current: networks(400, 1, 0), next: networks(400, 1, 12) });
    expect(verdict.decision).toBe('continue');
    expect(verdict.why).toContain('12 of 30 conversions so far');
  });

  it('sets aside the few networks that convert most: three that always convert make no win of equal versions', () => {
    const current = networks(3000, 1, 120);
    const next = networks(3000, 1, 120);
    const attacker = Array.from({ length: 3 }, () => ({ views: 50, conversions: 50 }));
    const plain = judgeExperiment(
      { current, next: [...next, ...attacker] },
      { ...defaultExperimentSettings, setAside: 0 },
    );
    expect(plain.decision).toBe('new version converts more');
    const judged = judgeExperiment({ current, next: [...next, ...attacker] });
    expect(judged.decision).toBe('continue');
    expect(judged.next.conversions).toBe(270); // shown as received; set aside only in the bounds
  });
});

// The table (1,000 runs a row, adversaries of 1-3 networks): `pnpm simulate:experiment`. A run is 14 days of traffic
// judged daily: a few hundredths of a second.
describe('the experiment judge on simulated traffic', { timeout: 120_000 }, () => {
  it('repeats a run from its seed', () => {
    expect(simulateExperiment(5)).toEqual(simulateExperiment(5));
  });

  it('declares no difference between equal versions looked at daily', () => {
    const row = simulateExperimentRow('equal', 20);
    expect(row.decisions).toEqual({ 'no difference shown': 20 });
  });

  it('finds a new version half as good again, in days', () => {
    const row = simulateExperimentRow('+50%', 10, { ...defaultExperimentTraffic, lift: 0.5 });
    expect(row.decisions).toEqual({ 'new version converts more': 10 });
    expect(row.medianDay).toBeLessThanOrEqual(5);
  });

  it('gives an adversary with three networks at their caps no win of equal versions, whatever it plays', () => {
    const row = simulateExperimentRow('adversary', 10, defaultExperimentTraffic, undefined, undefined, {
      adversaryNetworks: 3,
    });
    expect(row.changes).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { currentVersion, defaultJudgeSettings, judge, type NetworkEvidence } from './judge.ts';
import { differenceOfRates, mannWhitney, normalCdf, wilsonBound, zFor } from './stats.ts';

/** `count` networks of `views` views each, `erring` of them with one erred view; vitals from `value(i)`. */
const networks = (
  count: number,
  {
    views = 5,
    erring = 0,
    inp,
    lcp,
  }: { views?: number; erring?: number; inp?: (i: number) => number; lcp?: (i: number) => number } = {},
): NetworkEvidence[] =>
  Array.from({ length: count }, (_, i) => ({
    views,
    erred: i < erring ? 1 : 0,
    ...(inp && { inp: inp(i) }),
    ...(lcp && { lcp: lcp(i) }),
  }));

/** A spread of values around `median` (the same shape for every side, so that only the scale differs). */
const spread = (median: number) => (i: number) => Math.round(median * Math.exp(0.8 * Math.sin(i * 2.399)));

describe('the statistics the judge rests on', () => {
  it('agrees with the tables', () => {
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 5);
    expect(zFor(0.95)).toBeCloseTo(1.6449, 3);
    expect(zFor(0.999)).toBeCloseTo(3.0902, 3);
    // Wilson's 95% interval of 0 of 10: 0 to 0.2775.
    expect(wilsonBound(0, 10, 1.959964)).toBeCloseTo(0.2775, 3);
    const { difference, se } = differenceOfRates({ events: 10, trials: 100 }, { events: 5, trials: 100 });
    expect(difference).toBeCloseTo(11 / 102 - 6 / 102, 6);
    expect(se).toBeGreaterThan(0);
  });

  it('ranks with Mann-Whitney: no difference is z 0, one side above the other is large', () => {
    const sorted = (values: number[]) => Float64Array.from(values).sort();
    expect(mannWhitney(sorted([1, 2, 3, 4]), sorted([1, 2, 3, 4])).z).toBeCloseTo(0, 6);
    const above = mannWhitney(sorted([11, 12, 13, 14, 15, 16, 17, 18]), sorted([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(above.share).toBe(1);
    expect(above.z).toBeGreaterThan(3);
  });
});

describe('the release judge', () => {
  it('waits for counted views from RELEASE_WATCH_MIN_NETWORKS networks, and says so', () => {
    const verdict = judge(networks(19, { erring: 19 }), networks(500));
    expect(verdict).toMatchObject({
      verdict: 'wait',
      why: 'waiting for more visitors: counted views from 19 of 20 networks',
    });
  });

  it('does not roll back for one erred view from one network, however few views there are', () => {
    const canary = [...networks(60, { views: 1 }), { views: 1, erred: 1 }];
    const verdict = judge(canary, networks(65, { views: 1 }), defaultJudgeSettings, currentVersion);
    expect(verdict.verdict).not.toBe('roll back');
  });

  it('does not let three erred views of the current version from one network make an erring canary look fine', () => {
    // The canary errs for 30 of 600 networks (5%); the current version for none, but one network sends three errors.
    const canary = networks(600, { views: 1, erring: 30 });
    const current = [...networks(2000, { views: 1 }), { views: 3, erred: 3 }];
    const verdict = judge(canary, current, defaultJudgeSettings, currentVersion);
    expect(verdict.verdict).toBe('roll back');
    const alone = judge(canary, networks(2000, { views: 1 }), defaultJudgeSettings, currentVersion);
    expect(alone.verdict).toBe('roll back');
  });

  it('rolls back a canary that errs from many networks, naming the test, the figures, the networks and the margin', () => {
    // By hand: 3 networks at each end set aside on the canary's side, 30 on the baseline's (ten times the networks):
    // 37 of 788 views against 0 of 7,880; with Agresti and Caffo's +1/+2, 38/790 - 1/7,882 = 4.80 pp, standard error
    // 0.761 pp, lower 99.9% bound 4.80 - 3.09 x 0.761 = 2.4 pp.
    const verdict = judge(networks(400, { views: 2, erring: 40 }), networks(4000, { views: 2, erring: 20 }));
    expect(verdict.verdict).toBe('roll back');
    expect(verdict.why).toBe(
      'worse before: errors 5.0% of 800 views erred (40, from 40 networks) against 0.3% (20 of 8,000): at least ' +
        '+2.4 pp at 99.9%, above the minimum effect of +0.5 pp (errors from 37 networks once 3 and 30 networks at each ' +
        'end were set aside)',
    );
    expect(verdict.metrics).toEqual([
      expect.objectContaining({ metric: 'errors', classification: 'worse' }),
      expect.objectContaining({ metric: 'INP', classification: 'no data' }),
      expect.objectContaining({ metric: 'LCP', classification: 'no data' }),
    ]);
  });

  it('keeps a canary shown not worse (non-inferiority), and waits while it is not shown, saying for what', () => {
    const keep = judge(
      networks(300, { erring: 3 }),
      networks(3000, { erring: 30 }),
      defaultJudgeSettings,
      currentVersion,
    );
    expect(keep.verdict).toBe('keep');
    expect(keep.why).toMatch(
      /^not worse on the current version: errors 0\.2% of 1,500 views .* at most [+-][\d.]+ pp at 95%, within the margin of \+2\.0 pp$/,
    );
    const few = judge(
      networks(25, { views: 1, erring: 1 }),
      networks(3000, { erring: 30 }),
      defaultJudgeSettings,
      currentVersion,
    );
    expect(few.verdict).toBe('wait');
    expect(few.why).toMatch(
      /^waiting for evidence that it is not worse on the current version: errors .* between -[\d.]+ pp and \+[\d.]+ pp, the margin \+2\.0 pp$/,
    );
  });

  it('rolls back an INP slower by half from many networks (Mann-Whitney), not one within the margin', () => {
    const slow = judge(networks(300, { inp: spread(300) }), networks(3000, { inp: spread(200) }));
    expect(slow.verdict).toBe('roll back');
    expect(slow.why).toMatch(
      /INP median of the networks' values \d+ ms against \d+ ms, slower by more than the margin: Mann-Whitney/,
    );
    const same = judge(networks(300, { inp: spread(200) }), networks(3000, { inp: spread(200) }));
    expect(same.verdict).toBe('keep');
  });

  it('sets aside the values three networks send, however extreme', () => {
    const canary = [...networks(100, { lcp: spread(2000) }), ...networks(3, { lcp: () => 600_000 })];
    expect(judge(canary, networks(1000, { lcp: spread(2000) })).verdict).toBe('keep');
  });

  it('without a baseline, judges against the fixed limits', () => {
    const erring = judge(networks(200, { views: 1, erring: 40 }), networks(3));
    expect(erring.verdict).toBe('roll back');
    expect(erring.why).toMatch(
      /^worse \(no baseline: the version before has counted views from 3 networks, so the fixed limits apply\): errors 20\.0% .* above the fixed limit of 5\.0%/,
    );
    expect(judge(networks(200, { views: 1 }), []).verdict).toBe('keep');
  });
});

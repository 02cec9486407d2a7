import { describe, expect, it } from 'vitest';
import { countsLine, decide, waitingFor } from './decision.ts';
import type { VersionFigures } from './repository.ts';

const rule = { minNetworks: 20 };
const figures = (views: number, errorViews: number, networks = 25, inpP75?: number): VersionFigures => ({
  reports: views,
  reportNetworks: networks,
  views,
  errorViews,
  networks,
  routes: ['/privacy'],
  ...(inpP75 !== undefined && { inpP75 }),
});

describe('the release watch’s decision', () => {
  it('waits for 50 counted views from 20 networks, and says what it still needs', () => {
    expect(decide(figures(49, 49), figures(500, 0), rule)).toEqual({
      verdict: 'wait',
      why: 'waiting for more visitors: 49 of 50 counted views',
    });
    expect(decide(figures(500, 500, 19), figures(500, 0), rule)).toEqual({
      verdict: 'wait',
      why: 'waiting for more visitors: 19 of 20 networks',
    });
    expect(waitingFor(figures(5, 5, 1), rule)).toBe(
      'waiting for more visitors: 1 of 20 networks, 5 of 50 counted views',
    );
    expect(decide(figures(50, 50, 20), figures(500, 0), rule).verdict).toBe('roll back');
  });

  it('rolls back an error rate of views above 1% and more than twice the previous one, never at exactly twice', () => {
    expect(decide(figures(100, 4), figures(100, 2), rule).verdict).toBe('keep');
    expect(decide(figures(100, 5), figures(100, 2), rule)).toEqual({
      verdict: 'roll back',
      why: 'error rate 5.0% of views (5 of 100 views with an error) against 2.0% (2 of 100) before',
    });
    expect(decide(figures(100, 1), figures(100, 0), rule).verdict).toBe('keep');
  });

  it('rolls back a p75 INP more than 50% worse than the previous version’s', () => {
    expect(decide(figures(60, 0, 25, 300), figures(60, 0, 25, 200), rule).verdict).toBe('keep');
    expect(decide(figures(60, 0, 25, 301), figures(60, 0, 25, 200), rule)).toEqual({
      verdict: 'roll back',
      why: 'p75 INP 301 ms against 200 ms before (60 views)',
    });
  });

  it('rolls back a p75 LCP more than 50% worse, and names the current version as the baseline beside a canary', () => {
    const lcp = (lcpP75: number) => ({ ...figures(60, 0), lcpP75 });
    expect(decide(lcp(3000), lcp(2000), rule).verdict).toBe('keep');
    expect(decide(lcp(3001), lcp(2000), rule)).toEqual({
      verdict: 'roll back',
      why: 'p75 LCP 3001 ms against 2000 ms before (60 views)',
    });
    const current = { than: 'on the current version', name: 'the current version' };
    expect(decide(lcp(3001), lcp(2000), rule, current).why).toBe(
      'p75 LCP 3001 ms against 2000 ms on the current version (60 views)',
    );
    expect(decide(figures(100, 0), figures(100, 0), rule, current).why).toBe(
      'error rate 0.0% of views (0 of 100 views with an error), not worse than the current version',
    );
    expect(decide(figures(100, 0), figures(3, 0), rule, current).why).toMatch(/no baseline: the current version has 3/);
  });

  it('without a baseline compares with fixed limits only, and says so: never "0% before"', () => {
    // The previous version has too few counted views, or too few networks, to be a baseline.
    for (const previous of [figures(0, 0, 0), figures(49, 0), figures(500, 0, 19)]) {
      expect(decide(figures(100, 5), previous, rule).verdict).toBe('keep');
      const decision = decide(figures(100, 6), previous, rule);
      expect(decision.verdict).toBe('roll back');
      expect(decision.why).toMatch(
        /^error rate 6\.0% of views \(6 of 100 views with an error\), above the fixed limit of 5\.0% \(no baseline: the version before has/,
      );
      expect(decision.why).not.toContain('0.0%');
    }
    expect(decide(figures(100, 0, 25, 501), figures(10, 0), rule).why).toMatch(
      /^p75 INP 501 ms, above the fixed limit of 500 ms/,
    );
    expect(decide(figures(100, 0, 25, 500), figures(10, 0), rule).verdict).toBe('keep');
  });

  it('counts views, never reports: a rate is never above 100%', () => {
    expect(decide(figures(50, 50), figures(0, 0, 0), rule).why).toMatch(/^error rate 100\.0% of views/);
  });

  it('says in a line what was received and what counts', () => {
    expect(countsLine({ ...figures(5, 0, 1), reports: 4812 })).toBe(
      '4,812 reports from 1 network, 5 views counted from 1 network',
    );
  });
});

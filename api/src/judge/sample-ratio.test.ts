import { describe, expect, it } from 'vitest';
import { sampleRatio, type NetworkArms } from './sample-ratio.ts';
import { seeded } from './simulate.ts';

/**
 * The sample ratio check's error rates by simulation: visitors from 300 networks (a few large, many small), each
 * assigned once (its assigned view), 300 a day, looked at daily for 14 days; a run counts when any look fires.
 */
function runs(
  count: number,
  { share, lost = 0, adversary = 0 }: { share: number; lost?: number; adversary?: number },
): number {
  const random = seeded(share * 1000 + lost * 100 + adversary);
  let fired = 0;
  for (let run = 0; run < count; run++) {
    const networks: NetworkArms[] = Array.from({ length: 300 + adversary }, () => ({ current: 0, next: 0 }));
    for (let day = 0; day < 14; day++) {
      for (let visitor = 0; visitor < 300; visitor++) {
        const network = networks[Math.floor(300 * random() ** 2)]!;
        const onNext = random() * 100 < share;
        // A view lost on the new version (its beacon never arrives) is not counted.
        if (onNext && random() < lost) continue;
        network[onNext ? 'next' : 'current'] += 1;
      }
      // An adversary's networks: new visitors each day whose views it reports only when they land on the new
      // version (it drops the cookie, fetches pages, and keeps the arm it wants), 20 a network a day.
      for (let index = 300; index < 300 + adversary; index++) networks[index]!.next += 20;
      if (sampleRatio(networks, share).mismatch) {
        fired += 1;
        break;
      }
    }
  }
  return fired;
}

describe('the sample ratio check', () => {
  it('fires in at most 0.1% of correct splits over 14 looks (2,000 runs each at 50%, 25%, 5%)', () => {
    for (const share of [50, 25, 5]) expect(runs(2000, { share }), `${share}%`).toBeLessThanOrEqual(2);
  });

  it('fires when a version loses a share of its views: most runs at 10% lost, every run at 30%', () => {
    expect(runs(200, { share: 50, lost: 0.1 })).toBeGreaterThan(20);
    expect(runs(200, { share: 50, lost: 0.3 })).toBe(200);
  });

  it('is not made to fire by an adversary of 3 networks sending only one arm’s views', () => {
    expect(runs(500, { share: 50, adversary: 3 })).toBeLessThanOrEqual(1);
  });

  it('says what it found, in figures', () => {
    const even = Array.from({ length: 40 }, () => ({ current: 10, next: 10 }));
    expect(sampleRatio(even, 50)).toMatchObject({ mismatch: false, seen: 0.5, chiSquare: 0 });
    expect(sampleRatio(even, 50).why).toBe(
      'the arms match the split: 400 of 800 counted views on the new version (50.0%, planned 50.0%), from 40 and 40 ' +
        'networks; chi-square 0.0 by network, p 1.0000',
    );
    const lopsided = Array.from({ length: 40 }, () => ({ current: 10, next: 4 }));
    expect(sampleRatio(lopsided, 50).why).toMatch(
      /^MISMATCH: the arms are not the sizes the split says \(p < 0.001, valid at every look\): 160 of 560 counted views on the new version \(28.6%, planned 50.0%\)/,
    );
    expect(sampleRatio(lopsided.slice(0, 9), 50)).toMatchObject({ mismatch: false });
    expect(sampleRatio(lopsided.slice(0, 9), 50).why).toMatch(/^not checked yet \(9 of 10 networks\)/);
  });
});

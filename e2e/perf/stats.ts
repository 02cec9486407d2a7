/** The figures the benches compute from their loads. */

/** The median of the figures there are (a load or run that left one out has NaN for it); NaN when there is none. */
export const median = (values: number[]) => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (!sorted.length) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** A seeded draw in [0, 1) (Park and Miller's generator): the same seed, the same draws, so that a run can be repeated. */
export function seededRandom(seed: number) {
  let state = seed;
  return () => (state = (state * 48_271) % 2_147_483_647) / 2_147_483_647;
}

/**
 * How far this run's noise reaches for a route's figure against the floor's (`compare` of the two medians): its 5th
 * and 95th percentiles over 2,000 resamples of the route's loads, each drawn with the floor's load of its round
 * (together, so that a busy minute stays on both sides). Seeded, so that the same loads give the same interval. With 5
 * loads it is wide: on this host a route's first paint over the floor's moved by 0.3 between two runs of the same code.
 */
function resampledInterval(
  pairs: [site: number, floor: number][],
  compare: (site: number, floor: number) => number,
): [number, number] {
  if (pairs.length === 0) return [Number.NaN, Number.NaN];
  const random = seededRandom(20_261_202);
  const figures = Array.from({ length: 2000 }, () => {
    const sample = pairs.map(() => pairs[Math.floor(random() * pairs.length)]!);
    return compare(median(sample.map(([site]) => site)), median(sample.map(([, floor]) => floor)));
  }).sort((a, b) => a - b);
  return [figures[Math.floor(0.05 * (figures.length - 1))]!, figures[Math.ceil(0.95 * (figures.length - 1))]!];
}

/** The noise reach of a route's median over the floor's median (first paint, hydration). */
export const ratioInterval = (pairs: [site: number, floor: number][]) =>
  resampledInterval(pairs, (site, floor) => site / floor);

/** The noise reach of a route's median less the floor's median (blocking time, in ms). */
export const differenceInterval = (pairs: [site: number, floor: number][]) =>
  resampledInterval(pairs, (site, floor) => site - floor);

/** The figures the benches compute from their loads. */

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * How far this run's noise reaches for a route's ratio of medians to the floor's: its 5th and 95th percentiles over
 * 2,000 resamples of the route's loads, each drawn with the floor's load of its round (together, so that a busy minute
 * stays on both sides). Seeded, so that the same loads give the same interval. With 5 loads it is wide: on this host a
 * route's first paint over the floor's moved by 0.3 between two runs of the same code.
 */
export function ratioInterval(pairs: [site: number, floor: number][]): [number, number] {
  if (pairs.length === 0) return [Number.NaN, Number.NaN];
  let seed = 20_261_202;
  const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
  const ratios = Array.from({ length: 2000 }, () => {
    const sample = pairs.map(() => pairs[Math.floor(random() * pairs.length)]!);
    return median(sample.map(([site]) => site)) / median(sample.map(([, floor]) => floor));
  }).sort((a, b) => a - b);
  return [ratios[Math.floor(0.05 * (ratios.length - 1))]!, ratios[Math.ceil(0.95 * (ratios.length - 1))]!];
}

/**
 * The few statistics the release judge needs, written out so that a verdict can be checked by hand: the normal
 * distribution, intervals for a proportion and for a difference of two, and the Mann-Whitney rank test.
 */

/** The standard normal distribution's cumulative probability (Abramowitz and Stegun 26.2.17, error below 7.5e-8). */
export function normalCdf(z: number): number {
  if (z < 0) return 1 - normalCdf(-z);
  const t = 1 / (1 + 0.2316419 * z);
  const poly = t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return 1 - Math.exp((-z * z) / 2) * 0.3989422804014327 * poly;
}

const zs = new Map<number, number>();
/** The z a one-sided test at `confidence` must pass (0.95 -> 1.645, 0.99 -> 2.326), by bisection of `normalCdf`. */
export function zFor(confidence: number): number {
  const known = zs.get(confidence);
  if (known !== undefined) return known;
  let [low, high] = [-10, 10];
  for (let i = 0; i < 80; i += 1) {
    const mid = (low + high) / 2;
    if (normalCdf(mid) < confidence) low = mid;
    else high = mid;
  }
  zs.set(confidence, (low + high) / 2);
  return (low + high) / 2;
}

/** Wilson's score interval of a proportion, one bound at a time: `z` > 0 for the upper, < 0 for the lower. */
export function wilsonBound(successes: number, trials: number, z: number): number {
  if (!trials) return z > 0 ? 1 : 0;
  const p = successes / trials;
  const z2 = z * z;
  const centre = p + z2 / (2 * trials);
  const spread = Math.abs(z) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return Math.min(1, Math.max(0, (centre + Math.sign(z) * spread) / (1 + z2 / trials)));
}

/**
 * Agresti and Caffo's interval of a difference of two proportions (a - b): one success and one failure added to each
 * side, then the normal interval; sound with few events, where the plain one claims certainty from zero errors.
 */
export function differenceOfRates(a: { events: number; trials: number }, b: { events: number; trials: number }) {
  const pa = (a.events + 1) / (a.trials + 2);
  const pb = (b.events + 1) / (b.trials + 2);
  const se = Math.sqrt((pa * (1 - pa)) / (a.trials + 2) + (pb * (1 - pb)) / (b.trials + 2));
  return { difference: pa - pb, se };
}

/**
 * The Mann-Whitney test's z for "a tends to be larger than b", `a` and `b` each sorted ascending: positive when a's
 * values are mostly above b's, with the correction for ties; 0 when either side is empty. Also the share of pairs
 * where a is larger (ties count half).
 */
export function mannWhitney(sa: Float64Array, sb: Float64Array): { z: number; share: number } {
  const [na, nb] = [sa.length, sb.length];
  if (!na || !nb) return { z: 0, share: 0.5 };
  // The two sorted sides merged: ties across them share their mean rank.
  let rankSumA = 0;
  let tieTerm = 0;
  let rank = 1;
  let i = 0;
  let j = 0;
  while (i < na || j < nb) {
    const value = i < na && (j >= nb || sa[i]! <= sb[j]!) ? sa[i]! : sb[j]!;
    const [startA, startB] = [i, j];
    while (i < na && sa[i] === value) i += 1;
    while (j < nb && sb[j] === value) j += 1;
    const [fromA, tied] = [i - startA, i - startA + (j - startB)];
    const meanRank = rank + (tied - 1) / 2;
    rankSumA += fromA * meanRank;
    tieTerm += tied ** 3 - tied;
    rank += tied;
  }
  const u = rankSumA - (na * (na + 1)) / 2;
  const n = na + nb;
  const variance = ((na * nb) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  const z = variance > 0 ? (u - (na * nb) / 2) / Math.sqrt(variance) : 0;
  return { z, share: u / (na * nb) };
}

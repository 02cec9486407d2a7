import { normalCdf } from './stats.ts';

/**
 * The sample ratio check: are a test's arms the sizes its split says? Experiment platforms check it first (GrowthBook,
 * Statsig, Optimizely: a chi-square test of the arms' counts against the split at p < 0.001), because a mismatch means
 * visitors were not assigned, served or counted as planned (a page that drops its beacon on one arm, an arm that
 * crawlers or a cache see more of), and then no comparison of the arms can be trusted. Pure: each network's counted
 * views on each arm in, a verdict out.
 *
 * The statistic is Pearson's chi-square of the two arms' views against the split (one degree of freedom), with the
 * views' variance taken from the networks (a cluster-robust variance, as for a ratio estimate): a visitor's views all go
 * to its one arm, and a network's visitors come and go together, so views are not independent draws and the plain
 * chi-square would find mismatches in correct splits. So a few networks cannot make a mismatch by flooding one arm:
 * their weight in the variance grows with their views. The p-value printed is the chi-square's at this look.
 *
 * The decision must hold however often anyone looks (the watch looks every 30 s, a person every day), and a test at
 * p < 0.001 looked at a thousand times would fire in correct splits. So a mismatch is declared when the chi-square is
 * beyond what an always-valid test at the same 0.001 allows: a mixture sequential probability ratio test (the one the
 * experiment judge uses, with a normal mixture of standard deviation `mixtureSd` over the share's deviation), whose
 * chance of ever firing on a correct split, over every look together, stays within `alpha`.
 */
export interface SampleRatioSettings {
  /** The chance, over every look together, of declaring a mismatch where the split is right. */
  alpha: number;
  /** The mixture's standard deviation over the deviation of the new arm's share of views (0.1: 10 points). */
  mixtureSd: number;
  /** Networks with counted views before anything is said (the variance is read from them). */
  minNetworks: number;
}

export const defaultSampleRatioSettings: SampleRatioSettings = { alpha: 0.001, mixtureSd: 0.1, minNetworks: 10 };

/** What one network brought each arm: its counted views, uncapped (each view the site vouched for, once). */
export interface NetworkArms {
  current: number;
  next: number;
}

export interface SampleRatio {
  /** The new arm's planned share of views (0-1) and the share seen. */
  planned: number;
  seen: number;
  current: { views: number; networks: number };
  next: { views: number; networks: number };
  /** Networks with views on either arm. */
  networks: number;
  /** The chi-square (cluster-robust) and its p-value at this look. */
  chiSquare: number;
  p: number;
  mismatch: boolean;
  /** The check in a sentence, figures included. */
  why: string;
}

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const count = (value: number) => value.toLocaleString('en-US');

/** Arms' views per network against the planned share (`sharePercent` of views on the new version). */
export function sampleRatio(
  perNetwork: NetworkArms[],
  sharePercent: number,
  settings: SampleRatioSettings = defaultSampleRatioSettings,
): SampleRatio {
  const planned = sharePercent / 100;
  const totals = { current: { views: 0, networks: 0 }, next: { views: 0, networks: 0 } };
  let networks = 0;
  for (const network of perNetwork) {
    totals.current.views += network.current;
    totals.next.views += network.next;
    if (network.current > 0) totals.current.networks += 1;
    if (network.next > 0) totals.next.networks += 1;
    if (network.current + network.next > 0) networks += 1;
  }
  const views = totals.current.views + totals.next.views;
  const seen = views ? totals.next.views / views : 0;
  // The share's variance from the networks' deviations from the plan (with the small-sample factor G / (G - 1)).
  let squares = 0;
  for (const network of perNetwork) squares += (network.next - planned * (network.current + network.next)) ** 2;
  // Never below the binomial variance of independent views (clustering only adds to it): with a small share the
  // networks' estimate is itself noisy, and too small as often as too large.
  const variance =
    networks > 1
      ? Math.max(((networks / (networks - 1)) * squares) / views ** 2, (planned * (1 - planned)) / views)
      : 0;
  const deviation = seen - planned;
  const chiSquare = variance > 0 ? deviation ** 2 / variance : 0;
  const p = 2 * (1 - normalCdf(Math.sqrt(chiSquare)));
  const t2 = settings.mixtureSd ** 2;
  const evidence =
    variance > 0
      ? Math.sqrt(variance / (variance + t2)) * Math.exp((t2 * deviation ** 2) / (2 * variance * (variance + t2)))
      : 1;
  const enough = networks >= settings.minNetworks && planned > 0 && planned < 1;
  const mismatch = enough && evidence >= 1 / settings.alpha;
  const figures =
    `${count(totals.next.views)} of ${count(views)} counted views on the new version (${percent(seen)}, ` +
    `planned ${percent(planned)}), from ${count(totals.next.networks)} and ${count(totals.current.networks)} ` +
    `networks; chi-square ${chiSquare.toFixed(1)} by network, p ${p < 0.0001 ? '< 0.0001' : p.toFixed(4)}`;
  const why = !enough
    ? `not checked yet (${count(networks)} of ${settings.minNetworks} networks): ${figures}`
    : mismatch
      ? `MISMATCH: the arms are not the sizes the split says (p < ${settings.alpha}, valid at every look): ${figures}`
      : `the arms match the split: ${figures}`;
  return { planned, seen, ...totals, networks, chiSquare, p, mismatch, why };
}

/** Each arm's views added up by network name, for `sampleRatio`: `add` a network's views to an arm, `list` them. */
export function armsByNetwork() {
  const byName = new Map<string, NetworkArms>();
  return {
    add(name: string, side: keyof NetworkArms, views: number) {
      let network = byName.get(name);
      if (!network) byName.set(name, (network = { current: 0, next: 0 }));
      network[side] += views;
    },
    list: () => [...byName.values()],
  };
}

import { setAsideCounts, weighedTotals } from './judge.ts';

/**
 * The experiment judge: which of two versions of a remote's pages makes more of its views convert (a store button, the
 * vendor portal, a completed form), from the views the site served (ticketed) and their goals, looked at as often as
 * anyone likes without inflating false wins. Pure: figures in, verdict out; `pnpm experiment <remote> status` gathers
 * the figures, the simulator (simulate-experiment.ts) runs this same code on generated traffic.
 *
 * The test: a mixture sequential probability ratio test (mSPRT; Robbins 1970, as Johari, Pekelis and Walsh put it to
 * A/B tests in "Always valid inference", 2017) on the difference of the two conversion rates, with a normal mixture
 * of standard deviation `mixtureSd` over the alternatives. Its confidence sequence,
 *   difference +- sqrt(V (V + tau^2) / tau^2 * (2 ln(1/alpha) + ln((V + tau^2) / V))),  V the difference's variance,
 * covers the true difference at every look at once with probability at least 1 - alpha, so a team may look daily (or
 * every minute) and stop at the first look that excludes 0: the chance of ever declaring a difference between equal
 * versions stays within alpha, where a fixed-horizon test looked at 14 times would pass it by three or four times.
 *
 * The unit of trust is the network (an IPv4 /24 or IPv6 /48), as for the release judge: each network weighs at most
 * `networkWeight` views over the experiment (its conversions scaled alike), and each bound is computed once, on each
 * arm, the `setAside` networks most in favour of the claim it would support are set aside (for "the new version
 * converts more": the new version's most converting networks and the current version's least converting). So a
 * claim never rests on what a few networks sent: an adversary with that many networks, who fetches tickets and
 * clicks as any visitor does, is set aside whichever arm it feeds, and with it or without it the chance of a false win
 * stays within alpha (its networks set aside, the bound is at most the one of the real visitors with none set aside).
 * The price: a bound a little wider than the plain one (the simulator prints the power it costs).
 */

export interface ExperimentSettings {
  /** EXPERIMENT_ALPHA: the chance, over every look together, of declaring a difference between equal versions. */
  alpha: number;
  /**
   * EXPERIMENT_MIXTURE_SD: the mixture's standard deviation over the differences of rates, in absolute terms (0.008:
   * 0.8 percentage points). Near the effect the team hopes to find, the test is quickest to find it.
   */
  mixtureSd: number;
  /** EXPERIMENT_SET_ASIDE: networks set aside on each arm, those most in favour of a claim. */
  setAside: number;
  /** EXPERIMENT_NETWORK_WEIGHT: the most views one network weighs over the experiment. */
  networkWeight: number;
  /** Conversions on both arms together before anything is declared (the normal approximation needs a few). */
  minConversions: number;
}

export const defaultExperimentSettings: ExperimentSettings = {
  alpha: 0.05,
  mixtureSd: 0.008,
  setAside: 3,
  networkWeight: 50,
  minConversions: 30,
};

/** What one network brought one arm: counted views, and how many of them converted. */
export interface NetworkConversions {
  views: number;
  conversions: number;
}

/**
 * An experiment's evidence: each arm's networks over the whole experiment, a network named alike on every day (see
 * the API's experiment counting), so that a network is one voice however long the experiment runs.
 */
export interface ExperimentEvidence {
  current: NetworkConversions[];
  next: NetworkConversions[];
}

export interface ArmFigures {
  views: number;
  conversions: number;
  /** Networks that brought counted views. */
  networks: number;
  rate: number;
  /** The rate's always-valid interval at 1 - alpha. */
  low: number;
  high: number;
}

export type ExperimentDecision =
  'new version converts more' | 'current converts more' | 'no difference shown' | 'continue';

export interface ExperimentVerdict {
  decision: ExperimentDecision;
  /** The decision and its figures, in a sentence. */
  why: string;
  current: ArmFigures;
  next: ArmFigures;
  /**
   * The new version's rate less the current one's: as measured, and its always-valid interval once each end's networks
   * most in its favour are set aside; `relative` is the interval as a share of the current rate.
   */
  difference: { estimate: number; low: number; high: number; relativeLow: number; relativeHigh: number };
}

/**
 * The half-width of the normal mixture's confidence sequence for an estimate of variance `variance`: at every sample
 * size at once, the estimate is within it of the truth with probability 1 - alpha.
 */
export function mixtureRadius(variance: number, mixtureSd: number, alpha: number): number {
  if (!(variance > 0)) return 0;
  const t2 = mixtureSd * mixtureSd;
  return Math.sqrt(
    ((variance * (variance + t2)) / t2) * (2 * Math.log(1 / alpha) + Math.log((variance + t2) / variance)),
  );
}

/** A rate with one conversion and one view more than seen on each side (Agresti and Caffo), and its variance. */
function adjusted({ views, conversions }: { views: number; conversions: number }) {
  const rate = (conversions + 1) / (views + 2);
  return { rate, variance: (rate * (1 - rate)) / (views + 2) };
}

type Direction = 'up' | 'down';

/**
 * An arm's views and conversions, each network weighed at most `weight` views, once the `count` networks that pull its
 * rate most `direction` are set aside: up, those with the most conversions; down, those with the most views that did
 * not convert.
 */
function armTotals(networks: NetworkConversions[], count: number, weight: number, direction: Direction) {
  const aside = direction === 'up' ? { up: count, down: 0 } : { up: 0, down: count };
  const { views, events } = weighedTotals(networks, (network) => network.conversions, weight, aside);
  return { views, conversions: events };
}

/**
 * The bound of the difference (next - current) on `direction`'s side: up, the lower bound, from the new version's
 * networks less those that convert most and the current version's less those that convert least; down, the upper
 * bound, the other way round.
 */
function bound(evidence: ExperimentEvidence, settings: ExperimentSettings, direction: Direction) {
  const trim = setAsideCounts(evidence.next.length, evidence.current.length, settings.setAside);
  const weight = settings.networkWeight;
  const [next, current] = [
    adjusted(armTotals(evidence.next, trim.canary, weight, direction)),
    adjusted(armTotals(evidence.current, trim.baseline, weight, direction === 'up' ? 'down' : 'up')),
  ];
  const radius = mixtureRadius(next.variance + current.variance, settings.mixtureSd, settings.alpha);
  const difference = next.rate - current.rate;
  return { value: direction === 'up' ? difference - radius : difference + radius, base: current.rate };
}

/** An arm as it came (no network set aside), with its rate's always-valid interval. */
function armFigures(networks: NetworkConversions[], settings: ExperimentSettings): ArmFigures {
  const totals = { views: 0, conversions: 0, networks: 0 };
  for (const network of networks) {
    totals.views += network.views;
    totals.conversions += network.conversions;
    if (network.views > 0) totals.networks += 1;
  }
  const rate = totals.views ? totals.conversions / totals.views : 0;
  const radius = mixtureRadius(adjusted(totals).variance, settings.mixtureSd, settings.alpha);
  return { ...totals, rate, low: Math.max(0, rate - radius), high: Math.min(1, rate + radius) };
}
const percent = (share: number) => `${(share * 100).toFixed(2)}%`;
const points = (share: number) => `${share >= 0 ? '+' : '-'}${Math.abs(share * 100).toFixed(2)} pp`;
const relative = (share: number) => `${share >= 0 ? '+' : '-'}${Math.abs(share * 100).toFixed(0)}%`;
const count = (value: number) => String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * The verdict on an experiment's evidence so far. `horizonReached`: its planned days have run, so an open interval ends it
 * as "no difference shown" (the current version stays).
 */
export function judgeExperiment(
  evidence: ExperimentEvidence,
  settings: ExperimentSettings = defaultExperimentSettings,
  { horizonReached = false }: { horizonReached?: boolean } = {},
): ExperimentVerdict {
  const current = armFigures(evidence.current, settings);
  const next = armFigures(evidence.next, settings);
  const low = bound(evidence, settings, 'up');
  const high = bound(evidence, settings, 'down');
  const base = current.rate || low.base;
  // Two rates differ by at most 100 points: an interval wider than that (few views) is shown within it.
  const [lowest, highest] = [Math.max(-1, low.value), Math.min(1, high.value)];
  const difference = {
    estimate: next.rate - current.rate,
    low: lowest,
    high: highest,
    relativeLow: lowest / base,
    relativeHigh: highest / base,
  };
  const interval =
    `${points(difference.estimate)} (${percent(next.rate)} of ${count(next.views)} views against ` +
    `${percent(current.rate)} of ${count(current.views)}); between ${points(difference.low)} and ` +
    `${points(difference.high)} (${relative(difference.relativeLow)} to ${relative(difference.relativeHigh)}) at ` +
    `${Math.round((1 - settings.alpha) * 100)}%, valid at every look`;
  const enough = current.conversions + next.conversions >= settings.minConversions;
  const waiting = enough
    ? 'the interval still holds 0'
    : `${count(current.conversions + next.conversions)} of ${settings.minConversions} conversions so far`;
  const [decision, said]: [ExperimentDecision, string] =
    enough && difference.low > 0
      ? ['new version converts more', 'the new version converts more']
      : enough && difference.high < 0
        ? ['current converts more', 'the current version converts more']
        : horizonReached
          ? ['no difference shown', 'no difference shown in the days planned']
          : ['continue', `no decision yet (${waiting})`];
  return { decision, why: `${said}: ${interval}`, current, next, difference };
}

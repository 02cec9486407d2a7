import { differenceOfRates, mannWhitney, wilsonBound, zFor } from './stats.ts';
import { counted, thousands } from '../words.ts';

/**
 * The release judge: a new version's field data against a baseline's (the version before a promote, or the current
 * version beside a canary), per metric a test and a classification, then one verdict. Pure: figures in, verdict out;
 * the watch gathers the figures and acts, the simulator (simulate.ts) runs this same code on generated traffic.
 *
 * The unit of evidence is the network (an IPv4 /24 or IPv6 /48): each network brings at most a few counted views an
 * hour and one value of each vital (its median), and before any verdict the judge sets aside, on each side, the
 * `setAside` networks most in favour of it. So a verdict never rests on what a few networks sent:
 * - worse (roll back, abort): the canary is worse than the baseline by more than the margin at `confidence`, in a
 *   one-sided test, with its errors seen from at least `minErrorNetworks` networks;
 * - not worse (advance, keep): shown not worse by more than the margin at `advanceConfidence` (non-inferiority), for
 *   the error rate and for each vital with enough values;
 * - otherwise wait, saying for what.
 * Error rate: Agresti and Caffo's interval of the difference of the rates of erred views, the margin the larger of
 * `errorMargin.absolute` and `errorMargin.relative` of the baseline's rate. INP and LCP: Mann-Whitney's test of the
 * networks' values against the baseline's made `vitalsMargin` worse. Without a baseline (fewer than `minNetworks`
 * networks), fixed limits: Wilson's interval of the error rate against `fixedLimits.errorRate`; for a vital, of the
 * share of networks above its limit against 25% (whether its p75 is above the limit).
 */

export interface JudgeSettings {
  /** RELEASE_WATCH_MIN_NETWORKS: networks a version's counted views must come from before it is judged. */
  minNetworks: number;
  /** RELEASE_WATCH_SET_ASIDE: networks set aside on each side, those most in favour of a verdict. */
  setAside: number;
  /**
   * RELEASE_WATCH_NETWORK_WEIGHT: the most views one network weighs in the error rate over the window judged (its
   * erred views scaled alike), so that a busy network, or an adversary's over many hours, stays one voice of many.
   */
  networkWeight: number;
  /**
   * RELEASE_WATCH_MIN_VITALS_NETWORKS: networks with a value of a vital, on each side, before it is tested: a rank test
   * on a few dozen values, looked at every 30 s, would flag chance as slowness.
   */
  minVitalsNetworks: number;
  /** RELEASE_WATCH_MIN_ERROR_NETWORKS: distinct networks whose views erred before errors can roll back. */
  minErrorNetworks: number;
  /** RELEASE_WATCH_CONFIDENCE: of a "worse" (roll back, abort), one-sided. */
  confidence: number;
  /** RELEASE_WATCH_ADVANCE_CONFIDENCE: of a "not worse" (advance), one-sided. */
  advanceConfidence: number;
  /**
   * RELEASE_WATCH_ERROR_MARGIN (percentage points) and _RELATIVE (percent of the baseline's rate), the larger: how
   * much higher a canary's error rate may be and still be "not worse".
   */
  errorMargin: { absolute: number; relative: number };
  /**
   * RELEASE_WATCH_MIN_EFFECT (percentage points) and _RELATIVE, the larger: how much higher an error rate must be
   * shown to be before it is "worse".
   */
  minimumEffect: { absolute: number; relative: number };
  /** RELEASE_WATCH_VITALS_MARGIN: how much slower (a share) INP and LCP may be. */
  vitalsMargin: number;
  fixedLimits: { errorRate: number; INP: number; LCP: number };
  /**
   * RELEASE_WATCH_CONFIRM_MINUTES: how long a rollout's "worse" must hold before the watch aborts it (0: at once). See
   * `held`.
   */
  confirmMinutes: number;
}

export const defaultJudgeSettings: JudgeSettings = {
  minNetworks: 20,
  setAside: 3,
  networkWeight: 20,
  minErrorNetworks: 5,
  minVitalsNetworks: 50,
  confidence: 0.999,
  advanceConfidence: 0.95,
  errorMargin: { absolute: 0.02, relative: 1 },
  minimumEffect: { absolute: 0.005, relative: 0.25 },
  vitalsMargin: 0.25,
  fixedLimits: { errorRate: 0.05, INP: 500, LCP: 4000 },
  confirmMinutes: 10,
};

/** What one network brought of a version: counted views, how many erred, its median INP and LCP where it had any. */
export interface NetworkEvidence {
  views: number;
  erred: number;
  /** Of its views, those that reached the goal an experiment counts (when it counts one). */
  conversions?: number;
  inp?: number;
  lcp?: number;
}

export type Metric = 'errors' | 'INP' | 'LCP';
export type Classification = 'worse' | 'not worse' | 'inconclusive' | 'no data';

export interface MetricVerdict {
  metric: Metric;
  classification: Classification;
  /** The test and its figures, in a phrase: "+0.3 pp, at most +0.9 pp at 95% (margin 1.0 pp)". */
  says: string;
}

export interface Verdict {
  verdict: 'wait' | 'keep' | 'roll back';
  why: string;
  metrics: MetricVerdict[];
}

/** How a verdict names its baseline: the version before a promote, or the current one beside a canary. */
export interface Baseline {
  /** After a figure: "against 0.4% before". */
  than: string;
  /** As a subject: "the version before has 3 networks". */
  name: string;
}
export const versionBefore: Baseline = { than: 'before', name: 'the version before' };
export const currentVersion: Baseline = { than: 'on the current version', name: 'the current version' };

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const points = (share: number) => `${share >= 0 ? '+' : '-'}${Math.abs(share * 100).toFixed(1)} pp`;
const confidenceText = (confidence: number) => `${Number((confidence * 100).toFixed(1))}%`;

/**
 * The indices of the `count` highest `scores`, leaving out those `skipped` marks, the earlier first among equals (as a
 * stable sort would rank them). One pass that keeps the best `count` in order: the watch and the simulator look often,
 * at thousands of networks, and set aside a few dozen.
 */
export function highest(scores: Float64Array, count: number, skipped?: Uint8Array) {
  const best: number[] = [];
  if (count <= 0) return best;
  for (let index = 0; index < scores.length; index += 1) {
    if (skipped?.[index]) continue;
    const value = scores[index]!;
    if (best.length === count && value <= scores[best[count - 1]!]!) continue;
    let at = best.length;
    while (at > 0 && scores[best[at - 1]!]! < value) at -= 1;
    best.splice(at, 0, index);
    if (best.length > count) best.pop();
  }
  return best;
}

/**
 * How many networks (or values) each side sets aside at each end: `setAside` on the smaller side, the same share of the
 * larger one. A trimmed rate is the rate less what its most extreme share brought; trimming the same share on both
 * sides keeps equal versions equal, where trimming the same count would take more off the smaller side.
 */
export function setAsideCounts(canary: number, baseline: number, setAside: number) {
  const smaller = Math.max(1, Math.min(canary, baseline));
  const share = (size: number) => (size <= smaller ? setAside : Math.round((setAside * size) / smaller));
  return { canary: share(canary), baseline: share(baseline) };
}

/**
 * Views and events (erred views, conversions) over `networks`, each network weighed at most `weight` views (its events
 * scaled alike), once the `aside.up` networks that pull the rate up most (many events, the fewest views among equals)
 * and then the `aside.down` that pull it down most (many views without one) are set aside; `eventful` counts the
 * networks kept with an event. The release judge sets aside both ends; the experiment judge one, towards a claim.
 */
export function weighedTotals<N extends { views: number }>(
  networks: N[],
  eventsOf: (network: N) => number,
  weight: number,
  aside: { up: number; down: number },
) {
  const size = networks.length;
  const [views, events] = [new Float64Array(size), new Float64Array(size)];
  for (let index = 0; index < size; index += 1) {
    const network = networks[index]!;
    const heavy = network.views > weight;
    views[index] = heavy ? weight : network.views;
    events[index] = heavy ? (eventsOf(network) * weight) / network.views : eventsOf(network);
  }
  const setAside = new Uint8Array(size);
  if (aside.up > 0 || aside.down > 0) {
    const up = new Float64Array(size);
    const down = new Float64Array(size);
    for (let index = 0; index < size; index += 1) {
      up[index] = events[index]! * 1e6 - views[index]!;
      down[index] = (views[index]! - events[index]!) * 1e6 - events[index]!;
    }
    for (const index of highest(up, aside.up)) setAside[index] = 1;
    for (const index of highest(down, aside.down, setAside)) setAside[index] = 1;
  }
  const totals = { views: 0, events: 0, eventful: 0 };
  for (let index = 0; index < size; index += 1) {
    if (setAside[index]) continue;
    totals.views += views[index]!;
    totals.events += events[index]!;
    if (events[index]! > 0) totals.eventful += 1;
  }
  return totals;
}

/**
 * Views, erred views and erring networks, each network weighed at most `weight` views (its erred views scaled alike),
 * once the `count` networks that pull the rate up most (many erred views) and the `count` that pull it down most (many
 * clean views) are set aside: what a few networks sent, at either end, moves neither test.
 */
function trimmedTotals(networks: NetworkEvidence[], count: number, weight: number) {
  const { views, events, eventful } = weighedTotals(networks, (network) => network.erred, weight, {
    up: count,
    down: count,
  });
  return { views, erred: events, erring: eventful };
}

/** Views, erred views and erring networks, as they came. */
const totals = (networks: NetworkEvidence[]) => trimmedTotals(networks, 0, Infinity);

function errorsAgainstBaseline(canary: NetworkEvidence[], baseline: NetworkEvidence[], settings: JudgeSettings) {
  const [zWorse, zFine] = [zFor(settings.confidence), zFor(settings.advanceConfidence)];
  const margin = ({ absolute, relative }: { absolute: number; relative: number }, rate: number) =>
    Math.max(absolute, relative * rate);
  const trim = setAsideCounts(canary.length, baseline.length, settings.setAside);
  const c = trimmedTotals(canary, trim.canary, settings.networkWeight);
  const b = trimmedTotals(baseline, trim.baseline, settings.networkWeight);
  const { difference, se } = differenceOfRates(
    { events: c.erred, trials: c.views },
    { events: b.erred, trials: b.views },
  );
  const baseRate = b.views ? b.erred / b.views : 0;
  const [worseMargin, fineMargin] = [margin(settings.minimumEffect, baseRate), margin(settings.errorMargin, baseRate)];
  const [lower, upper] = [difference - zWorse * se, difference + zFine * se];
  const all = { c: totals(canary), b: totals(baseline) };
  const rates =
    `${percent(all.c.views ? all.c.erred / all.c.views : 0)} of ${counted(all.c.views, 'view')} erred ` +
    `(${thousands(all.c.erred)}, from ${counted(all.c.erring, 'network')}) against ` +
    `${percent(all.b.views ? all.b.erred / all.b.views : 0)} (${thousands(all.b.erred)} of ${thousands(all.b.views)})`;
  if (lower > worseMargin && c.erring >= settings.minErrorNetworks) {
    return {
      classification: 'worse' as const,
      says:
        `${rates}: at least ${points(lower)} at ${confidenceText(settings.confidence)}, above the minimum effect of ` +
        `${points(worseMargin)} (errors from ${counted(c.erring, 'network')} once ${trim.canary} and ${trim.baseline} ` +
        'networks at each end were set aside)',
    };
  }
  if (upper < fineMargin) {
    return {
      classification: 'not worse' as const,
      says: `${rates}: at most ${points(upper)} at ${confidenceText(settings.advanceConfidence)}, within the margin of ${points(fineMargin)}`,
    };
  }
  const short =
    lower > worseMargin ? `; errors from ${c.erring} of ${settings.minErrorNetworks} networks needed to roll back` : '';
  return {
    classification: 'inconclusive' as const,
    says: `${rates}: between ${points(lower)} and ${points(upper)}, the margin ${points(fineMargin)}${short}`,
  };
}

function errorsAgainstLimit(canary: NetworkEvidence[], settings: JudgeSettings) {
  const k = settings.setAside;
  const limit = settings.fixedLimits.errorRate;
  const worse = trimmedTotals(canary, k, settings.networkWeight);
  const lower = wilsonBound(worse.erred, worse.views, -zFor(settings.confidence));
  const upper = wilsonBound(worse.erred, worse.views, zFor(settings.advanceConfidence));
  const all = totals(canary);
  const rate = `${percent(all.views ? all.erred / all.views : 0)} of ${counted(all.views, 'view')} erred (${thousands(all.erred)}, from ${counted(all.erring, 'network')})`;
  if (lower > limit && worse.erring >= settings.minErrorNetworks) {
    return {
      classification: 'worse' as const,
      says: `${rate}: at least ${percent(lower)} at ${confidenceText(settings.confidence)}, above the fixed limit of ${percent(limit)}`,
    };
  }
  if (upper < limit) {
    return {
      classification: 'not worse' as const,
      says: `${rate}: at most ${percent(upper)} at ${confidenceText(settings.advanceConfidence)}, within the fixed limit of ${percent(limit)}`,
    };
  }
  return {
    classification: 'inconclusive' as const,
    says: `${rate}: between ${percent(lower)} and ${percent(upper)}, the fixed limit ${percent(limit)}`,
  };
}

/**
 * A version's networks. `sorted` may bring each vital's values already sorted, exactly as `valuesOf` would make them:
 * the simulator keeps them so as its traffic comes, instead of sorting thousands of values at every look.
 */
export type Evidence = NetworkEvidence[] & { sorted?: Record<'inp' | 'lcp', Float64Array> };

/** The networks' values of a vital, sorted ascending. */
const valuesOf = (networks: Evidence, vital: 'inp' | 'lcp') => {
  if (networks.sorted) return networks.sorted[vital];
  const values = new Float64Array(networks.length);
  let count = 0;
  for (const network of networks) {
    const value = network[vital];
    if (value !== undefined) values[count++] = value;
  }
  return values.subarray(0, count).sort();
};

/** Sorted `values` without the `count` largest and the `count` smallest. */
const trimmed = (values: Float64Array, count: number) =>
  values.subarray(Math.min(count, values.length), Math.max(Math.min(count, values.length), values.length - count));

const median = (sorted: Float64Array) => (sorted.length ? sorted[(sorted.length - 1) >> 1]! : 0);

function vitalAgainstBaseline(metric: 'INP' | 'LCP', canary: Evidence, baseline: Evidence, settings: JudgeSettings) {
  const key = metric === 'INP' ? 'inp' : 'lcp';
  const [c, b] = [valuesOf(canary, key), valuesOf(baseline, key)];
  const k = settings.setAside;
  const slower = 1 + settings.vitalsMargin;
  const bSlower = new Float64Array(b.length);
  for (let index = 0; index < b.length; index += 1) bSlower[index] = b[index]! * slower;
  const trim = setAsideCounts(c.length, b.length, k);
  const worse = mannWhitney(trimmed(c, trim.canary), trimmed(bSlower, trim.baseline));
  const medians = `median of the networks' values ${Math.round(median(c))} ms against ${Math.round(median(b))} ms`;
  const test = (z: number, confidence: number) =>
    `Mann-Whitney against the baseline ${Math.round(settings.vitalsMargin * 100)}% slower, z ${z.toFixed(2)} at ` +
    `${confidenceText(confidence)} one-sided (${counted(c.length, 'network')} with a value)`;
  if (worse.z > zFor(settings.confidence)) {
    return {
      classification: 'worse' as const,
      says: `${medians}, slower by more than the margin: ${test(worse.z, settings.confidence)}`,
    };
  }
  if (worse.z < -zFor(settings.advanceConfidence)) {
    return {
      classification: 'not worse' as const,
      says: `${medians}, within the margin: ${test(worse.z, settings.advanceConfidence)}`,
    };
  }
  return {
    classification: 'inconclusive' as const,
    says: `${medians}, neither shown: ${test(worse.z, settings.confidence)}`,
  };
}

function vitalAgainstLimit(metric: 'INP' | 'LCP', canary: Evidence, settings: JudgeSettings) {
  const limit = settings.fixedLimits[metric];
  const values = valuesOf(canary, metric === 'INP' ? 'inp' : 'lcp');
  const k = settings.setAside;
  const above = (list: Float64Array) => list.reduce((sum, value) => sum + (value > limit ? 1 : 0), 0);
  const kept = trimmed(values, k);
  const lower = wilsonBound(above(kept), kept.length, -zFor(settings.confidence));
  const upper = wilsonBound(above(kept), kept.length, zFor(settings.advanceConfidence));
  const share = `${percent(values.length ? above(values) / values.length : 0)} of ${counted(values.length, 'network')} above ${limit} ms`;
  if (lower > 0.25) {
    return {
      classification: 'worse' as const,
      says: `${share}: p75 above the fixed limit (at least ${percent(lower)} above it at ${confidenceText(settings.confidence)})`,
    };
  }
  if (upper < 0.25) {
    return {
      classification: 'not worse' as const,
      says: `${share}: p75 within the fixed limit (at most ${percent(upper)} above it at ${confidenceText(settings.advanceConfidence)})`,
    };
  }
  return { classification: 'inconclusive' as const, says: `${share}: neither shown` };
}

const networksWith = (networks: NetworkEvidence[], key: 'inp' | 'lcp') =>
  networks.reduce((count, network) => count + (network[key] === undefined ? 0 : 1), 0);

/** The judge's verdict on `next` against `baseline`, each metric's test and classification with it. */
export function judge(
  next: Evidence,
  baseline: Evidence,
  settings: JudgeSettings = defaultJudgeSettings,
  named: Baseline = versionBefore,
): Verdict {
  if (next.length < settings.minNetworks) {
    return {
      verdict: 'wait',
      why: `waiting for more visitors: counted views from ${next.length} of ${settings.minNetworks} networks`,
      metrics: [],
    };
  }
  const hasBaseline = baseline.length >= settings.minNetworks;
  const metrics: MetricVerdict[] = [
    {
      metric: 'errors',
      ...(hasBaseline ? errorsAgainstBaseline(next, baseline, settings) : errorsAgainstLimit(next, settings)),
    },
  ];
  for (const metric of ['INP', 'LCP'] as const) {
    const key = metric === 'INP' ? 'inp' : 'lcp';
    const enough = networksWith(next, key) >= settings.minVitalsNetworks;
    const compared = hasBaseline && networksWith(baseline, key) >= settings.minVitalsNetworks;
    if (!enough) {
      metrics.push({
        metric,
        classification: 'no data',
        says: `values from ${networksWith(next, key)} of ${settings.minVitalsNetworks} networks`,
      });
    } else {
      metrics.push({
        metric,
        ...(compared
          ? vitalAgainstBaseline(metric, next, baseline, settings)
          : vitalAgainstLimit(metric, next, settings)),
      });
    }
  }
  const against = hasBaseline
    ? named.than
    : `(no baseline: ${named.name} has counted views from ${counted(baseline.length, 'network')}, so the fixed limits apply)`;
  const line = (list: MetricVerdict[]) => list.map((m) => `${m.metric} ${m.says}`).join('; ');
  const worse = metrics.filter((m) => m.classification === 'worse');
  if (worse.length) return { verdict: 'roll back', why: `worse ${against}: ${line(worse)}`, metrics };
  const open = metrics.filter((m) => m.classification === 'inconclusive');
  if (open.length) {
    return { verdict: 'wait', why: `waiting for evidence that it is not worse ${against}: ${line(open)}`, metrics };
  }
  const shown = metrics.filter((m) => m.classification === 'not worse');
  return { verdict: 'keep', why: `not worse ${against}: ${line(shown)}`, metrics };
}

/**
 * A rollout's verdict once "worse" has had to hold: the judge on the figures as they stood `confirmMinutes` earlier
 * (`earlier`; undefined when that was before the stage began) must say "worse" too, or the watch waits. A stage is
 * looked at every 30 s for hours, and a test at 99.9% asked a thousand times says "worse" by chance now and then, on
 * a run that stands near its line, where one more ordinary network tips it; the failure limits of Argo Rollouts
 * (consecutive failures) and Kayenta (several intervals) are the same idea. Without memory: every site server, and one
 * restarted, decides alike. A promote's watch is one short window against hours of the version before, and rolls back
 * at once.
 */
export function held(
  now: Verdict,
  earlier: Verdict | undefined,
  settings: Pick<JudgeSettings, 'confirmMinutes'>,
): Verdict {
  if (now.verdict !== 'roll back' || settings.confirmMinutes <= 0 || earlier?.verdict === 'roll back') return now;
  return {
    ...now,
    verdict: 'wait',
    why: `${now.why}; waiting for it to hold ${settings.confirmMinutes} minutes (worse as the figures stood then too) before the abort`,
  };
}

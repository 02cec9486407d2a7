import type { Db } from '../db/database.ts';
import { fieldData, fieldDataRetention, type VersionFigures } from './repository.ts';

/**
 * The release watch's rule, on the views a decision may count (see `countedFigures`): the new version is judged once
 * it has at least 50 counted views from at least `minNetworks` networks. Against a previous version with as much,
 * it goes back when its error rate of views is above 1% and more than twice the previous one's, or its p75 INP or p75
 * LCP more than 50% worse. Without such a baseline (too few counted views of the previous version) it is judged against fixed
 * limits only: an error rate of views above 5%, or a p75 INP above 500 ms (Poor).
 */

export interface DecisionRule {
  /** RELEASE_WATCH_MIN_NETWORKS: distinct client networks the counted views must come from. */
  minNetworks: number;
}

/** Counted views of a version before it is judged, or serves as a baseline. */
export const minViews = 50;
export const fixedLimits = { errorRate: 0.05, inpP75: 500 } as const;

export type Decision =
  { verdict: 'wait'; why: string } | { verdict: 'keep'; why: string } | { verdict: 'roll back'; why: string };

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const number = (value: number) => value.toLocaleString('en-US');
const rateOf = (figures: VersionFigures) => (figures.views ? figures.errorViews / figures.views : 0);
const plural = (count: number, one: string, many = `${one}s`) => `${number(count)} ${count === 1 ? one : many}`;

/** Whether a version's counted views can judge, or be judged against. */
const enough = (figures: VersionFigures, rule: DecisionRule) =>
  figures.views >= minViews && figures.networks >= rule.minNetworks;

/** What the watch still needs of a version before it decides, or undefined when it has it. */
export function waitingFor(figures: VersionFigures, rule: DecisionRule): string | undefined {
  const missing = [
    ...(figures.networks < rule.minNetworks ? [`${figures.networks} of ${rule.minNetworks} networks`] : []),
    ...(figures.views < minViews ? [`${figures.views} of ${minViews} counted views`] : []),
  ];
  return missing.length ? `waiting for more visitors: ${missing.join(', ')}` : undefined;
}

/** What was received and what counts, in a line: "4,812 reports from 1 network, 5 views counted from 1 network". */
export function countsLine(figures: VersionFigures): string {
  return (
    `${plural(figures.reports, 'report')} from ${plural(figures.reportNetworks, 'network')}, ` +
    `${plural(figures.views, 'view')} counted from ${plural(figures.networks, 'network')}`
  );
}

/** How a decision's reasons name its baseline: the version before a promote, or the current one beside a canary. */
export interface Baseline {
  /** After a figure: "against 0.4% before". */
  than: string;
  /** As a subject: "the version before has 3 counted views". */
  name: string;
}
const versionBefore: Baseline = { than: 'before', name: 'the version before' };
const currentVersion: Baseline = { than: 'on the current version', name: 'the current version' };

/** The watch's verdict on `next` against `previous`, with why. */
export function decide(
  next: VersionFigures,
  previous: VersionFigures,
  rule: DecisionRule,
  { than, name }: Baseline = versionBefore,
): Decision {
  const waiting = waitingFor(next, rule);
  if (waiting) return { verdict: 'wait', why: waiting };
  const rate = rateOf(next);
  const errors = `error rate ${percent(rate)} of views (${number(next.errorViews)} of ${number(next.views)} views with an error)`;
  if (enough(previous, rule)) {
    const before = rateOf(previous);
    if (rate > 0.01 && rate > 2 * before) {
      return {
        verdict: 'roll back',
        why: `${errors} against ${percent(before)} (${number(previous.errorViews)} of ${number(previous.views)}) ${than}`,
      };
    }
    if (next.inpP75 !== undefined && previous.inpP75 !== undefined && next.inpP75 > 1.5 * previous.inpP75) {
      return {
        verdict: 'roll back',
        why: `p75 INP ${Math.round(next.inpP75)} ms against ${Math.round(previous.inpP75)} ms ${than} (${number(next.views)} views)`,
      };
    }
    if (next.lcpP75 !== undefined && previous.lcpP75 !== undefined && next.lcpP75 > 1.5 * previous.lcpP75) {
      return {
        verdict: 'roll back',
        why: `p75 LCP ${Math.round(next.lcpP75)} ms against ${Math.round(previous.lcpP75)} ms ${than} (${number(next.views)} views)`,
      };
    }
    return { verdict: 'keep', why: `${errors}, not worse than ${than === versionBefore.than ? than : name}` };
  }
  const noBaseline =
    `no baseline: ${name} has ${plural(previous.views, 'counted view')} from ` +
    `${plural(previous.networks, 'network')}, so the fixed limits apply`;
  if (rate > fixedLimits.errorRate) {
    return {
      verdict: 'roll back',
      why: `${errors}, above the fixed limit of ${percent(fixedLimits.errorRate)} (${noBaseline})`,
    };
  }
  if (next.inpP75 !== undefined && next.inpP75 > fixedLimits.inpP75) {
    return {
      verdict: 'roll back',
      why: `p75 INP ${Math.round(next.inpP75)} ms, above the fixed limit of ${fixedLimits.inpP75} ms (${noBaseline})`,
    };
  }
  return { verdict: 'keep', why: `${errors}, within the fixed limits (${noBaseline})` };
}

/** RELEASE_WATCH_MIN_NETWORKS and RELEASE_WATCH_MAX_PER_NETWORK by default. */
export const defaultRule = { minNetworks: 20, maxPerNetwork: 5 };

/**
 * What the watch sees of a release under watch: the new version's counted figures since its promote, the previous
 * version's on the same routes over the raw reports' retention, and the decision.
 */
export async function judgeRelease(
  db: Db,
  watched: { remote: string; version: string; previous: string; since: Date },
  rule: DecisionRule & { maxPerNetwork: number } = defaultRule,
  now = () => new Date(),
) {
  const data = fieldData(db, now);
  const next = await data.countedFigures({ ...watched, maxPerNetwork: rule.maxPerNetwork });
  const previous = await data.countedFigures({
    remote: watched.remote,
    version: watched.previous,
    since: new Date(watched.since.getTime() - fieldDataRetention.rawHours * 3_600_000),
    routes: next.routes,
    maxPerNetwork: rule.maxPerNetwork,
  });
  return { next, previous, decision: decide(next, previous, rule) };
}

/**
 * A staged rollout's judgement: the canary's counted figures since its stage began, beside the current version's over
 * the same hours and the same routes (its own visitors, the other cohort), and the decision by the same rule.
 */
export async function judgeRollout(
  db: Db,
  rollout: { remote: string; version: string; current: string; since: Date },
  rule: DecisionRule & { maxPerNetwork: number } = defaultRule,
  now = () => new Date(),
) {
  const data = fieldData(db, now);
  const until = now();
  const canary = await data.countedFigures({ ...rollout, until, maxPerNetwork: rule.maxPerNetwork });
  const current = await data.countedFigures({
    remote: rollout.remote,
    version: rollout.current,
    since: rollout.since,
    until,
    routes: canary.routes,
    maxPerNetwork: rule.maxPerNetwork,
  });
  return { canary, current, decision: decide(canary, current, rule, currentVersion) };
}

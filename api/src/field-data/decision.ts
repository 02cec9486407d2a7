import type { Db } from '../db/database.ts';
import { counted } from '../words.ts';
import {
  currentVersion,
  defaultJudgeSettings,
  held,
  judge,
  versionBefore,
  type JudgeSettings,
  type Verdict,
} from '../judge/judge.ts';
import { fieldData, fieldDataRetention, type VersionFigures } from './repository.ts';
import { armsByNetwork, sampleRatio } from '../judge/sample-ratio.ts';

/**
 * What the release watch gathers for the judge (../judge/judge.ts): a version's counted views per network, from the
 * counted (ticketed) rows alone, by SQL aggregates, so that a look reads as much as real visitors sent and never the
 * flood beside them.
 */

export type Decision = Verdict;
export type DecisionRule = JudgeSettings & { maxPerNetwork: number };

/** The judge's settings and RELEASE_WATCH_MAX_PER_NETWORK, by default. */
export const defaultRule: DecisionRule = { ...defaultJudgeSettings, maxPerNetwork: 5 };

/**
 * What was received and what counts, in a line: "4,812 reports from 1 network, 5 views counted from 1 network", or
 * only what counts when the reports were not read.
 */
export function countsLine(figures: VersionFigures): string {
  const views = `${counted(figures.views, 'view')} counted from ${counted(figures.networks, 'network')}`;
  if (figures.reports === undefined) return views;
  return `${counted(figures.reports, 'report')} from ${counted(figures.reportNetworks ?? 0, 'network')}, ${views}`;
}

/** What the watch still needs of a version before the judge decides, or undefined when it has it. */
export function waitingFor(figures: VersionFigures, rule: Pick<JudgeSettings, 'minNetworks'>): string | undefined {
  return figures.networks < rule.minNetworks
    ? `waiting for more visitors: counted views from ${figures.networks} of ${rule.minNetworks} networks`
    : undefined;
}

/** `reports`: also count every report received (a scan of the window: for the commands, not the watch's looks). */
interface Reading {
  reports?: boolean;
}

/**
 * A release under watch: the new version's counted figures since its promote, the previous version's on the same
 * routes over the raw reports' retention, and the judge's verdict.
 */
export async function judgeRelease(
  db: Db,
  watched: { remote: string; version: string; previous: string; since: Date },
  rule: DecisionRule = defaultRule,
  now = () => new Date(),
  { reports = false }: Reading = {},
) {
  const data = fieldData(db, now);
  const next = await data.countedFigures({ ...watched, maxPerNetwork: rule.maxPerNetwork, reports });
  const previous = await data.countedFigures({
    remote: watched.remote,
    version: watched.previous,
    since: new Date(watched.since.getTime() - fieldDataRetention.rawHours * 3_600_000),
    routes: next.routes,
    maxPerNetwork: rule.maxPerNetwork,
    reports,
  });
  return { next, previous, decision: judge(next.perNetwork, previous.perNetwork, rule, versionBefore) };
}

/**
 * A staged rollout's stage: the canary's counted figures since its stage began, beside the current version's over the
 * same hours and the same routes (its own visitors, the other cohort), and the judge's verdict.
 */
export async function judgeRollout(
  db: Db,
  rollout: { remote: string; version: string; current: string; since: Date; share: number },
  rule: DecisionRule = defaultRule,
  now = () => new Date(),
  { reports = false }: Reading = {},
) {
  const data = fieldData(db, now);
  const figures = async (until: Date, withReports: boolean) => {
    const canary = await data.countedFigures({
      ...rollout,
      until,
      maxPerNetwork: rule.maxPerNetwork,
      reports: withReports,
    });
    const current = await data.countedFigures({
      remote: rollout.remote,
      version: rollout.current,
      since: rollout.since,
      until,
      routes: canary.routes,
      maxPerNetwork: rule.maxPerNetwork,
      reports: withReports,
    });
    return { canary, current, decision: judge(canary.perNetwork, current.perNetwork, rule, currentVersion) };
  };
  const until = now();
  const judged = { ...(await figures(until, reports)), sampleRatio: await stageSampleRatio(db, rollout, until, now) };
  if (judged.decision.verdict !== 'roll back' || rule.confirmMinutes <= 0) return judged;
  // "Worse" must hold: the same judge on the figures as they stood RELEASE_WATCH_CONFIRM_MINUTES ago.
  const then = new Date(until.getTime() - rule.confirmMinutes * 60_000);
  const earlier = then > rollout.since ? (await figures(then, false)).decision : undefined;
  return { ...judged, decision: held(judged.decision, earlier, rule) };
}

/**
 * A rollout stage's sample ratio check (../judge/sample-ratio.ts): each arm's views on which a visitor was assigned
 * (a new visitor once), per network, since the stage began, against the stage's share.
 */
async function stageSampleRatio(
  db: Db,
  rollout: { remote: string; version: string; current: string; since: Date; share: number },
  until: Date,
  now: () => Date,
) {
  const data = fieldData(db, now);
  const window = { remote: rollout.remote, since: rollout.since, until };
  const [next, current] = [
    await data.assignedViews({ ...window, version: rollout.version }),
    await data.assignedViews({ ...window, version: rollout.current }),
  ];
  const networks = armsByNetwork();
  for (const [network, views] of next) networks.add(network, 'next', views);
  for (const [network, views] of current) networks.add(network, 'current', views);
  return sampleRatio(networks.list(), rollout.share);
}

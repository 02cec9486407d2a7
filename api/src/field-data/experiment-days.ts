import { pageRoutes, routeGoals } from '@gift/content';
import type { GoalName } from '@gift/contracts/field-data';
import type { Db } from '../db/database.ts';
import type { FieldGoalDayTable } from '../db/schema.ts';
import { defaultExperimentSettings, judgeExperiment, type NetworkConversions } from '../judge/experiment.ts';
import { dayOf } from './networks.ts';
import {
  armsByNetwork,
  defaultSampleRatioSettings,
  sampleRatio,
  type SampleRatio,
  type SampleRatioSettings,
} from '../judge/sample-ratio.ts';
import { fieldDataRetention, fieldData } from './repository.ts';

/**
 * An experiment's evidence over its days. Raw reports are kept 48 hours and a network's hash changes key every day;
 * an experiment runs for two weeks and weighs each network once over all of them. So each day is rolled up: per
 * remote, version and goal, the views counted that day on each network and how many reached the goal (the same count
 * as the release judge's: a ticket each, at most `maxPerNetwork` a network an hour), each network under a name it
 * keeps across days. A report keeps its network's hash with the keys of its day and of the two days before, so a hash
 * of today is linked to yesterday's (or the day before's) name of the same network, and then the day's key can go
 * with the raw reports as before: the names link days, never an address.
 */

const dayMs = 86_400_000;

/** A network's figures over an experiment's days, under its name, with its views on which a visitor was assigned. */
export type NamedNetwork = NetworkConversions & { network: string; assigned: number };
const startOf = (day: string) => new Date(`${day}T00:00:00.000Z`);
const daysBefore = (day: string, count: number) => dayOf(new Date(startOf(day).getTime() - count * dayMs));

/** The goals of a remote's pages, as `routeGoals` names them. */
export function remoteGoals(remote: string): GoalName[] {
  const goals = pageRoutes.filter((route) => route.remote === remote).flatMap((route) => routeGoals[route.path] ?? []);
  return [...new Set(goals)];
}

/** How long the network names are kept: the two days a later day may link to, and that day. */
const chainDays = 3;

export function experimentDays(db: Db, now: () => Date = () => new Date(), maxPerNetwork = 5) {
  const data = fieldData(db, now);

  /** Each of the day's network hashes with its name: yesterday's name, the day before's, or the hash itself. */
  async function nameNetworks(day: string): Promise<Map<string, string>> {
    const since = startOf(day).toISOString();
    const until = startOf(daysBefore(day, -1)).toISOString();
    const [{ hashes }, earlier] = await Promise.all([
      data.countedIn({ since: new Date(since), until: new Date(until) }),
      db
        .selectFrom('field_network_chains')
        .select(['day', 'hash', 'chain'])
        .where('day', 'in', [daysBefore(day, 1), daysBefore(day, 2)])
        .execute(),
    ]);
    // By day and hash: a day has as many hashes as networks (tens of thousands), each looked up here.
    const chains = new Map(earlier.map((row) => [`${row.day}\u0000${row.hash}`, row.chain]));
    const known = (back: number, hash: string) => chains.get(`${daysBefore(day, back)}\u0000${hash}`);
    const names = new Map<string, string>();
    for (const { network, network_1, network_2 } of hashes) {
      if (!names.has(network)) names.set(network, known(1, network_1) ?? known(2, network_2) ?? network);
    }
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('field_network_chains').where('day', '=', day).execute();
      const rows = [...names].map(([hash, chain]) => ({ day, hash, chain }));
      for (let i = 0; i < rows.length; i += 500) {
        await trx
          .insertInto('field_network_chains')
          .values(rows.slice(i, i + 500))
          .execute();
      }
    });
    return names;
  }

  return {
    /**
     * Rolls up `day` (YYYY-MM-DD, UTC) from the raw reports: every remote with goals and every version counted that
     * day. Replaces what an earlier roll-up of the day wrote (a day rolled up while under way is rolled up again).
     */
    async rollUpDay(day: string) {
      const since = startOf(day);
      const until = startOf(daysBefore(day, -1));
      const names = await nameNetworks(day);
      const { versions } = await data.countedIn({ since, until });
      const rows: (Omit<FieldGoalDayTable, 'day' | 'assigned'> & { assigned: number })[] = [];
      for (const { remote, version } of versions) {
        const assigned = await data.assignedViews({ remote, version, since, until });
        for (const goal of remoteGoals(remote)) {
          const figures = await data.countedFigures({ remote, version, since, until, maxPerNetwork, goal });
          figures.perNetwork.forEach((network, index) => {
            const hash = figures.networkNames![index]!;
            rows.push({
              remote,
              version,
              goal,
              network: names.get(hash) ?? hash,
              views: network.views,
              conversions: network.conversions ?? 0,
              assigned: assigned.get(hash) ?? 0,
            });
          });
        }
      }
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('field_goal_days').where('day', '=', day).execute();
        for (let i = 0; i < rows.length; i += 500) {
          await trx
            .insertInto('field_goal_days')
            .values(rows.slice(i, i + 500).map((row) => ({ ...row, day })))
            .execute();
        }
      });
      return rows.length;
    },

    /** Yesterday (complete now) and today so far; names and days past their time go. */
    async rollUpRecentDays() {
      const today = dayOf(now());
      const rows = (await this.rollUpDay(daysBefore(today, 1))) + (await this.rollUpDay(today));
      await db.deleteFrom('field_network_chains').where('day', '<=', daysBefore(today, chainDays)).execute();
      await db
        .deleteFrom('field_goal_days')
        .where('day', '<', daysBefore(today, fieldDataRetention.hourlyDays))
        .execute();
      return rows;
    },

    /**
     * One arm's evidence: what each network brought `version` of `remote` toward `goal` on the days from `since`'s to
     * `until`'s, a network's days added up under its name.
     */
    async evidence({
      remote,
      version,
      goal,
      since,
      until = now(),
    }: {
      remote: string;
      version: string;
      goal: string;
      since: Date;
      until?: Date;
    }): Promise<NamedNetwork[]> {
      const rows = await db
        .selectFrom('field_goal_days')
        .select(['network', 'views', 'conversions', 'assigned'])
        .where('remote', '=', remote)
        .where('version', '=', version)
        .where('goal', '=', goal)
        .where('day', '>=', dayOf(since))
        .where('day', '<=', dayOf(until))
        .execute();
      const networks = new Map<string, NamedNetwork>();
      for (const row of rows) {
        const known = networks.get(row.network) ?? { network: row.network, views: 0, conversions: 0, assigned: 0 };
        known.views += Number(row.views);
        known.conversions += Number(row.conversions);
        known.assigned += Number(row.assigned);
        networks.set(row.network, known);
      }
      return [...networks.values()];
    },
  };
}

/** An experiment as the site's ledger has it: the new version against the current one, since it started. */
export interface ExperimentUnderWay {
  remote: string;
  version: string;
  current: string;
  goal: string;
  since: Date;
  days: number;
  /** The new version's share of visitors, in percent. */
  share: number;
}

/**
 * Where an experiment stands: today's and yesterday's figures rolled up first (the hourly roll-up may be up to an hour
 * behind), then each arm's evidence over its days, judged (`judgeExperiment`), its last day reached or not.
 */
export async function judgeExperimentOver(
  db: Db,
  experiment: ExperimentUnderWay,
  { maxPerNetwork = 5, settings = defaultExperimentSettings, now = () => new Date() } = {},
) {
  const days = experimentDays(db, now, maxPerNetwork);
  await days.rollUpRecentDays();
  const arm = (version: string) => days.evidence({ ...experiment, version });
  const evidence = { current: await arm(experiment.current), next: await arm(experiment.version) };
  const horizonReached = now().getTime() >= experiment.since.getTime() + experiment.days * dayMs;
  return {
    ...judgeExperiment(evidence, settings, { horizonReached }),
    sampleRatio: await experimentSampleRatio(db, experiment, { now }),
  };
}

/**
 * Each arm's counted views and conversions over an experiment's days, as the daily roll-up holds them (up to an hour
 * behind, and each network's views capped as the judge caps them): what the release watch publishes as metrics.
 */
export async function experimentTotals(db: Db, experiment: ExperimentUnderWay, now = () => new Date()) {
  const days = experimentDays(db, now);
  const total = async (version: string) => {
    let views = 0;
    let conversions = 0;
    for (const row of await days.evidence({ ...experiment, version })) {
      views += row.views;
      conversions += row.conversions;
    }
    return { views, conversions };
  };
  return { current: await total(experiment.current), next: await total(experiment.version) };
}

/**
 * An experiment's sample ratio check: each arm's assigned views per network (a new visitor once) against its share.
 * The days after its first are read from the daily roll-up (as rolled up: up to an hour behind); its first day from the raw reports since its start, while they are all kept (48 hours from that day's
 * midnight), for the day's roll-up also holds the current version's views of before the start. After that the first
 * day is left out on both arms alike.
 */
export async function experimentSampleRatio(
  db: Db,
  experiment: ExperimentUnderWay,
  {
    now = () => new Date(),
    settings = defaultSampleRatioSettings,
  }: { now?: () => Date; settings?: SampleRatioSettings } = {},
): Promise<SampleRatio> {
  const firstDay = dayOf(experiment.since);
  const secondDay = startOf(daysBefore(firstDay, -1));
  const days = experimentDays(db, now);
  const networks = armsByNetwork();
  const arms = [
    ['current', experiment.current],
    ['next', experiment.version],
  ] as const;
  for (const [side, version] of arms) {
    for (const row of await days.evidence({ ...experiment, version, since: secondDay })) {
      networks.add(row.network, side, row.assigned);
    }
  }
  if (now().getTime() < startOf(firstDay).getTime() + 2 * dayMs) {
    const data = fieldData(db, now);
    const until = new Date(Math.min(now().getTime(), secondDay.getTime()));
    const chains = await db
      .selectFrom('field_network_chains')
      .select(['hash', 'chain'])
      .where('day', '=', firstDay)
      .execute();
    const nameOf = new Map(chains.map((row) => [row.hash, row.chain]));
    for (const [side, version] of arms) {
      const assigned = await data.assignedViews({ remote: experiment.remote, version, since: experiment.since, until });
      for (const [hash, views] of assigned) networks.add(nameOf.get(hash) ?? hash, side, views);
    }
  }
  return sampleRatio(networks.list(), experiment.share, settings);
}

// counting: what a release decision may count of a version, read from the views the site vouched for (one row each,
// field_counted) and the goals they reached (field_goals): a look costs what the views cost, never the reports stored.
import { sql, type RawBuilder } from 'kysely';
import { isPostgresDb, type Db } from '../db/database.ts';
import type { NetworkEvidence } from '../judge/judge.ts';
import { percentile } from './figures.ts';
import { dayOf } from './networks.ts';
import { yieldToOthers } from './batches.ts';

/**
 * What a release decision may count of one version over a window: the views the site vouched for (a valid ticket,
 * each view once), at most `maxPerNetwork` of them per network and hour, per network for the judge; with `reports`,
 * also every report received and the networks they came from.
 */
export interface VersionFigures {
  /** Reports received, whatever they claim, and the networks they came from (when read). */
  reports?: number;
  reportNetworks?: number;
  /** Views counted: ticketed, each once, capped per network and hour. */
  views: number;
  /** Of those, views with at least one error. */
  errorViews: number;
  /** Of those, views that reached the goal asked for (once each), when one was. */
  conversions?: number;
  /** Networks the counted views came from. */
  networks: number;
  inpP75?: number;
  lcpP75?: number;
  /** The routes the counted views were on. */
  routes: string[];
  /** What each network brought, as the judge weighs it. */
  perNetwork: NetworkEvidence[];
  /** With a goal asked for: each of `perNetwork`'s networks by its hash in the window (what a day's roll-up keeps). */
  networkNames?: string[];
}

/**
 * The column that names a view's network in a window from `since`: each report's hash with the key of the window's
 * first day (its own day's, the day before's or the one before that), so that a network is one hash across midnight.
 * A window is at most 48 hours of raw reports, three days; it starts no earlier than two days before `now`'s.
 */
export function networkColumn(since: Date, now: Date) {
  const first = dayOf(new Date(Math.max(since.getTime(), now.getTime() - 2 * 86_400_000)));
  const next = dayOf(new Date(Date.parse(`${first}T00:00:00.000Z`) + 86_400_000));
  return sql`(case when substr(v.received_at, 1, 10) <= ${first} then v.network
    when substr(v.received_at, 1, 10) = ${next} then v.network_1 else v.network_2 end)`;
}

/** How many views a look reads a slice: PostgreSQL's queries leave the event loop free, SQLite's hold it. */
const lookRows = (db: Db) => (isPostgresDb(db) ? 2000 : 500);

export function counting(db: Db, now: () => Date) {
  return {
    /**
     * What a release decision may count of one version since `since` (before `until`, on `routes` when given): the
     * views the site vouched for, each once, at most `maxPerNetwork` per network and hour, first come first counted;
     * a view erred when any report of it carried an error. Reads the views' own rows (one per ticket, whatever was
     * sent with it), a slice at a time with other work let in between. With `reports`, every report received is
     * counted too (a scan of the window's raw rows: for the commands).
     */
    async countedFigures({
      remote,
      version,
      since,
      until,
      routes,
      maxPerNetwork,
      reports = false,
      goal,
    }: {
      remote: string;
      version: string;
      since: Date;
      until?: Date;
      routes?: string[];
      maxPerNetwork: number;
      reports?: boolean;
      /** Count the views that reached this goal too (the goal's row of the view's ticket): `conversions`. */
      goal?: string;
    }): Promise<VersionFigures> {
      const figures: VersionFigures = { views: 0, errorViews: 0, networks: 0, routes: [], perNetwork: [] };
      if (routes && !routes.length) return { ...figures, ...(reports && { reports: 0, reportNetworks: 0 }) };
      const window = sql.join(
        [
          sql`v.remote = ${remote}`,
          sql`v.version = ${version}`,
          sql`v.received_at >= ${since.toISOString()}`,
          ...(until ? [sql`v.received_at < ${until.toISOString()}`] : []),
        ],
        sql` and `,
      ) as RawBuilder<boolean>;
      const network = networkColumn(since, now());
      type Row = {
        ticket: string;
        received_at: string;
        network: string;
        route: string;
        erred: number;
        inp: number | null;
        lcp: number | null;
      };
      const converted = new Set<string>();
      if (goal !== undefined) {
        // A goal said within the window or the hour before it (a goal's ping often comes before its view's beacon).
        const from = new Date(since.getTime() - 3_600_000).toISOString();
        const rows = await db
          .selectFrom('field_goals')
          .select('ticket')
          .where('remote', '=', remote)
          .where('version', '=', version)
          .where('goal', '=', goal)
          .where('received_at', '>=', from)
          .execute();
        for (const row of rows) converted.add(row.ticket);
      }
      const networks = new Map<string, NetworkEvidence>();
      const perNetworkHour = new Map<string, number>();
      const seenRoutes = new Set<string>();
      const inp: number[] = [];
      const lcp: number[] = [];
      let after: { at: string; ticket: string } | undefined;
      for (;;) {
        const { rows } = await sql<Row>`select v.ticket, v.received_at, ${network} as network, v.route, v.erred,
            v.inp, v.lcp
          from field_counted v
          where ${window} and v.counted = 1
            ${routes ? sql`and v.route in (${sql.join(routes)})` : sql``}
            ${after ? sql`and (v.received_at, v.ticket) > (${after.at}, ${after.ticket})` : sql``}
          order by v.received_at, v.ticket limit ${lookRows(db)}`.execute(db);
        for (const view of rows) {
          const slot = `${view.network}\u0000${view.received_at.slice(0, 13)}`;
          const taken = perNetworkHour.get(slot) ?? 0;
          if (taken >= maxPerNetwork) continue;
          perNetworkHour.set(slot, taken + 1);
          let evidence = networks.get(view.network);
          if (!evidence) networks.set(view.network, (evidence = { views: 0, erred: 0 }));
          evidence.views += 1;
          figures.views += 1;
          if (view.erred) {
            evidence.erred += 1;
            figures.errorViews += 1;
          }
          if (goal !== undefined && converted.has(view.ticket)) {
            evidence.conversions = (evidence.conversions ?? 0) + 1;
            figures.conversions = (figures.conversions ?? 0) + 1;
          }
          // Each network's first value of each vital: one draw from every network, however many views it brought.
          if (view.inp !== null) {
            evidence.inp ??= Number(view.inp);
            inp.push(Number(view.inp));
          }
          if (view.lcp !== null) {
            evidence.lcp ??= Number(view.lcp);
            lcp.push(Number(view.lcp));
          }
          seenRoutes.add(view.route);
        }
        if (rows.length < lookRows(db)) break;
        after = { at: rows.at(-1)!.received_at, ticket: rows.at(-1)!.ticket };
        await yieldToOthers();
      }
      figures.networks = networks.size;
      figures.perNetwork = [...networks.values()];
      if (goal !== undefined) figures.networkNames = [...networks.keys()];
      figures.routes = [...seenRoutes].sort();
      const [inpP75, lcpP75] = [percentile(inp, 0.75), percentile(lcp, 0.75)];
      if (inpP75 !== undefined) figures.inpP75 = inpP75;
      if (lcpP75 !== undefined) figures.lcpP75 = lcpP75;
      if (reports) {
        const received = await db
          .selectFrom('field_views as v')
          .select([
            sql<number | string>`coalesce(sum(weight), 0)`.as('reports'),
            sql<number | string>`count(distinct network)`.as('networks'),
          ])
          .where(window)
          .where(routes ? sql<boolean>`v.route in (${sql.join(routes)})` : sql<boolean>`1 = 1`)
          .executeTakeFirst();
        figures.reports = Number(received?.reports ?? 0);
        figures.reportNetworks = Number(received?.networks ?? 0);
      }
      return figures;
    },

    /**
     * Each network's counted views of `version` since `since` (before `until`) on which the visitor was assigned its
     * arms (a new visitor's first view during a test), every one (no cap): by network hash, as `networkColumn` names it.
     * What the sample ratio check counts: a visitor once, however many pages it then sees.
     */
    async assignedViews({
      remote,
      version,
      since,
      until,
    }: {
      remote: string;
      version: string;
      since: Date;
      until: Date;
    }) {
      const { rows } = await sql<{ network: string; views: number | string }>`select ${networkColumn(since, now())}
          as network, count(*) as views from field_counted v
        where v.remote = ${remote} and v.version = ${version} and v.received_at >= ${since.toISOString()}
          and v.received_at < ${until.toISOString()} and v.counted = 1 and v.assigned = 1
        group by 1`.execute(db);
      return new Map(rows.map((row) => [row.network, Number(row.views)]));
    },

    /** The versions with views counted in a window, and the networks' hashes those views came with. */
    async countedIn({ since, until }: { since: Date; until: Date }) {
      const views = db
        .selectFrom('field_counted')
        .where('received_at', '>=', since.toISOString())
        .where('received_at', '<', until.toISOString());
      const [versions, hashes] = await Promise.all([
        views.select(['remote', 'version']).distinct().execute(),
        views.select(['network', 'network_1', 'network_2']).distinct().where('network', '!=', '').execute(),
      ]);
      return { versions, hashes };
    },
  };
}

import type { FieldReport, VitalName } from '@gift/contracts/field-data';
import { vitalNames } from '@gift/contracts/field-data';
import { sql, type Insertable, type RawBuilder } from 'kysely';
import { isPostgresDb, type Db } from '../db/database.ts';
import { dayOf, networkHasher } from './networks.ts';
import type { FieldErrorTable, FieldHourTable, FieldViewTable } from '../db/schema.ts';
import type { NetworkEvidence } from '../judge/judge.ts';

const hourMs = 3_600_000;
/** Raw entries are kept two days, hourly figures ninety. */
export const fieldDataRetention = { rawHours: 48, hourlyDays: 90 } as const;

/** The value below which `share` of the sorted `values` fall (nearest rank); undefined for none. */
export function percentile(values: number[], share: number): number | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(share * sorted.length) - 1)];
}

/** What one remote's version showed on one route over a window. */
export interface FieldFigures {
  remote: string;
  version: string;
  route: string;
  /** Phone or desktop, where the figures are split by the visitors' screens. */
  device?: string;
  views: number;
  /** Views with at least one error: the error rate is these over `views`, never above 100%. */
  errorViews: number;
  /** Errors reported, all counted (what `rum errors` lists). */
  errors: number;
  p75: Partial<Record<VitalName, number>>;
  /** How many values each p75 rests on. */
  samples: Partial<Record<VitalName, number>>;
}

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

const keyOf = (row: { remote: string; version: string; route: string; device?: string }) =>
  `${row.remote}\u0000${row.version}\u0000${row.route}\u0000${row.device ?? ''}`;

/** One hour's figures of one route: what `rum --by hour` prints. */
export interface HourFigures {
  hour: string;
  views: number;
  errorViews: number;
  errors: number;
  p75: Partial<Record<VitalName, number>>;
}

/** One figure as a tally counts it: a raw entry, or an hourly row whose p75 (`value`) stands for `count` values. */
interface Counted {
  kind: string;
  name: string;
  value: number | null;
  count: number;
  hourly?: boolean;
}

/**
 * A group's views, errors and each metric's p75, built the same way from the raw entries (each value counted, the
 * p75 exact) and from the hourly figures (each hour's p75 weighted by the values it rests on).
 */
function tally() {
  let views = 0;
  let errorViews = 0;
  let errors = 0;
  const values = new Map<string, number[]>();
  const weighted = new Map<string, [sum: number, count: number]>();
  return {
    add({ kind, name, value, count, hourly }: Counted) {
      if (kind === 'view') views += count;
      else if (kind === 'erred') errorViews += count;
      else if (kind === 'error') errors += count;
      else if (value !== null && hourly) {
        const [sum, samples] = weighted.get(name) ?? [0, 0];
        weighted.set(name, [sum + value * count, samples + count]);
      } else if (value !== null) {
        if (!values.has(name)) values.set(name, []);
        values.get(name)!.push(value);
      }
    },
    figures() {
      const p75: Partial<Record<VitalName, number>> = {};
      const samples: Partial<Record<VitalName, number>> = {};
      for (const name of vitalNames) {
        const exact = values.get(name);
        const hourly = weighted.get(name);
        if (exact) [p75[name], samples[name]] = [percentile(exact, 0.75), exact.length];
        else if (hourly) [p75[name], samples[name]] = [hourly[0] / hourly[1], hourly[1]];
      }
      return { views, errorViews, errors, p75, samples };
    },
  };
}

type Tags = { remote: string; version: string; route: string; device?: string };

/** Figures per remote, version and route (and device, when rows carry one), from raw entries or hourly rows. */
function figuresOf(rows: (Tags & Counted)[]): FieldFigures[] {
  const groups = new Map<string, { tags: Tags; counts: ReturnType<typeof tally> }>();
  for (const row of rows) {
    const key = keyOf(row);
    let group = groups.get(key);
    if (!group) {
      const { remote, version, route, device } = row;
      group = { tags: { remote, version, route, ...(device === undefined ? {} : { device }) }, counts: tally() };
      groups.set(key, group);
    }
    group.counts.add(row);
  }
  return [...groups.values()].map(({ tags, counts }) => ({ ...tags, ...counts.figures() }));
}

/** An hourly row as a tally counts it. */
const hourly = (row: FieldHourTable) => ({ ...row, value: row.p75, hourly: true });

const vitalColumns = { LCP: 'lcp', INP: 'inp', CLS: 'cls', FCP: 'fcp', TTFB: 'ttfb' } as const;

/** A report as it is stored: what the page sent, with what the API found of it. */
export type StoredReport = Omit<FieldReport, 'ticket'> & {
  /** The client network's hash ('' when it has none), and with the keys of the two days before. */
  network?: string;
  earlierNetworks?: [string, string];
  /** The nonce of the valid ticket the report brought, if any. */
  ticket?: string | null;
  /** How many reports it stands for (1, or more while the storage budget samples). */
  weight?: number;
};

/** A beacon's rows: one with its tags, vitals and how it counts, and one per error. */
function rowsOf(report: StoredReport, at: string) {
  const tags = { received_at: at, route: report.route, remote: report.remote, version: report.version };
  const weight = report.weight ?? 1;
  const view: Insertable<FieldViewTable> = {
    ...tags,
    shell: report.shell,
    viewport: report.viewport,
    counted: report.view ? 1 : 0,
    network: report.network ?? '',
    network_1: report.earlierNetworks?.[0] ?? report.network ?? '',
    network_2: report.earlierNetworks?.[1] ?? report.network ?? '',
    ticket: report.ticket ?? null,
    goal: report.goal ?? null,
    weight,
  };
  const errors: Insertable<FieldErrorTable>[] = [];
  let errorCount = 0;
  for (const entry of report.entries) {
    if ('metric' in entry) view[vitalColumns[entry.metric]] = entry.value;
    else {
      errors.push({ ...tags, message: entry.error, frame: entry.frame ?? null, count: entry.count, weight });
      errorCount += entry.count;
    }
  }
  // Whether the view erred is what counts; a smallint holds any count a beacon may carry here.
  view.errors = Math.min(errorCount, 30_000);
  return { views: [view], errors };
}

/**
 * The column that names a view's network in a window from `since`: each report's hash with the key of the window's
 * first day (its own day's, the day before's or the one before that), so that a network is one hash across midnight.
 * A window is at most 48 hours of raw reports, three days; it starts no earlier than two days before `now`'s.
 */
function networkColumn(since: Date, now: Date) {
  const first = dayOf(new Date(Math.max(since.getTime(), now.getTime() - 2 * 86_400_000)));
  const next = dayOf(new Date(Date.parse(`${first}T00:00:00.000Z`) + 86_400_000));
  return sql`(case when substr(v.received_at, 1, 10) <= ${first} then v.network
    when substr(v.received_at, 1, 10) = ${next} then v.network_1 else v.network_2 end)`;
}

/** One figure as the roll-ups and the figures read it: a view, a vital's value, or an error's count. */
interface Entry {
  remote: string;
  version: string;
  route: string;
  /** The visitor's screen (phone or desktop); errors are not reported with it. */
  viewport?: string;
  /** When it was received. */
  at: string;
  kind: 'view' | 'erred' | 'metric' | 'error';
  name: string;
  value: number | null;
  count: number;
}

/** How many rows a batch reads: small enough that no query holds the event loop for long. */
const batchRows = 500;
/**
 * How many rows a roll-up (`rawRows`) and a look (`lookRows`: ticketed rows, narrower) read a batch. SQLite answers
 * within the calling task (better-sqlite3 is synchronous), and an answer of the same process crosses several turns of
 * the event loop, each of which may wait for a batch: a quarter of PostgreSQL's there (whose queries leave the loop
 * free). Measured with `pnpm test:looks` and `pnpm bench:field-data` (docs/operations.md).
 */
const rawRows = (db: Db) => (isPostgresDb(db) ? batchRows : batchRows / 4);
const lookRows = (db: Db) => (isPostgresDb(db) ? batchRows * 2 : batchRows / 2);
/** Lets other work (requests, health checks) run between two batches. */
const yieldToOthers = () => new Promise((resolve) => setImmediate(resolve));
/** Distinct error messages kept per remote, version and hour; the rest are counted as one. */
export const maxErrorMessages = 20;
export const otherErrors = 'other errors';

/**
 * Stores reports in groups (group commit): a report that arrives while a write is under way goes with the others that
 * arrived meanwhile in the next one. Each caller's promise settles when its own report is committed, so an answer
 * never says stored before it is; under load one commit serves many reports instead of one each.
 */
export function groupCommit(write: (reports: StoredReport[]) => Promise<void>) {
  let waiting: { report: StoredReport; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing = false;
  async function drain() {
    writing = true;
    while (waiting.length) {
      const group = waiting;
      waiting = [];
      try {
        await write(group.map((item) => item.report));
        for (const item of group) item.resolve();
      } catch (error) {
        for (const item of group) item.reject(error);
      }
    }
    writing = false;
  }
  return (report: StoredReport) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ report, resolve, reject });
      if (!writing) void drain();
    });
}

/** Field data: reports as they arrive, their hourly figures, and what the teams and the release watch read. */
export function fieldData(db: Db, now: () => Date = () => new Date()) {
  interface Filter {
    since: Date;
    until?: Date;
    remote?: string;
    version?: string;
    routes?: string[];
  }
  /** The raw rows' condition for `filter`, after row `afterId` (the rows are read in batches, in id order). */
  const within = (filter: Filter, afterId: number) =>
    sql.join(
      [
        sql`received_at >= ${filter.since.toISOString()}`,
        ...(filter.until ? [sql`received_at < ${filter.until.toISOString()}`] : []),
        ...(filter.remote ? [sql`remote = ${filter.remote}`] : []),
        ...(filter.version ? [sql`version = ${filter.version}`] : []),
        ...(filter.routes ? [sql`route in (${sql.join(filter.routes)})`] : []),
        sql`id > ${afterId}`,
      ],
      sql` and `,
    ) as RawBuilder<boolean>;

  /** The next batch of a raw table's rows of `filter` after row `afterId`, in id order. */
  const views = (filter: Filter, afterId: number) =>
    db.selectFrom('field_views').selectAll().where(within(filter, afterId)).orderBy('id').limit(rawRows(db)).execute();
  const errors = (filter: Filter, afterId: number) =>
    db.selectFrom('field_errors').selectAll().where(within(filter, afterId)).orderBy('id').limit(rawRows(db)).execute();

  /** Every row `batch` reads for `filter`, handed to `visit` a batch at a time, other work let in between. */
  async function inBatches<Row extends { id: number }>(
    batch: (filter: Filter, afterId: number) => Promise<Row[]>,
    filter: Filter,
    visit: (row: Row) => void,
  ) {
    for (let last = 0; ;) {
      const rows = await batch(filter, last);
      for (const row of rows) visit(row);
      if (rows.length < rawRows(db)) return;
      last = Number(rows.at(-1)!.id);
      await yieldToOthers();
    }
  }

  /**
   * Every raw entry of `filter`, handed to `visit` a batch at a time with other work let in between, so that no read
   * holds the event loop for long however many reports there are. A view erred when its counting beacon carried an
   * error or a later beacon of the same view (the same ticket) did.
   */
  async function eachEntry(filter: Filter, visit: (entry: Entry) => void) {
    if (filter.routes && !filter.routes.length) return;
    const erredTickets = new Set(
      (
        await db
          .selectFrom('field_views')
          .select('ticket')
          .distinct()
          .where(within(filter, 0))
          .where('errors', '>', 0)
          .where('ticket', 'is not', null)
          .execute()
      ).map((row) => row.ticket),
    );
    await inBatches(views, filter, (row) => {
      const tags = { remote: row.remote, version: row.version, route: row.route, viewport: row.viewport };
      const at = row.received_at;
      if (row.counted) {
        visit({ ...tags, at, kind: 'view', name: '', value: null, count: row.weight });
        if (row.errors > 0 || (row.ticket !== null && erredTickets.has(row.ticket))) {
          visit({ ...tags, at, kind: 'erred', name: '', value: null, count: row.weight });
        }
      }
      for (const name of vitalNames) {
        const value = row[vitalColumns[name]];
        if (value !== null) visit({ ...tags, at, kind: 'metric', name, value, count: row.weight });
      }
    });
    await inBatches(errors, filter, (row) => {
      const { remote, version, route } = row;
      const at = row.received_at;
      visit({
        remote,
        version,
        route,
        at,
        kind: 'error',
        name: row.message,
        value: null,
        count: row.count * row.weight,
      });
    });
  }

  /** The raw entries of `filter`, gathered (for the operators' command, not the server's event loop). */
  async function entries(filter: Filter): Promise<Entry[]> {
    const found: Entry[] = [];
    await eachEntry(filter, (entry) => found.push(entry));
    return found;
  }

  return {
    /** Stores one beacon's entries, as they came. */
    async store(report: StoredReport) {
      await this.storeAll([report]);
    },

    /** Stores several beacons in one transaction (one commit, one wait for the disk). */
    async storeAll(reports: StoredReport[]) {
      const at = now().toISOString();
      const rows = reports.map((report) => rowsOf(report, at));
      const views = rows.flatMap((row) => row.views);
      const errors = rows.flatMap((row) => row.errors);
      if (!views.length && !errors.length) return;
      await db.transaction().execute(async (trx) => {
        // In slices: SQLite takes at most 32,766 bound values a statement.
        for (let i = 0; i < views.length; i += 1000) {
          await trx
            .insertInto('field_views')
            .values(views.slice(i, i + 1000))
            .execute();
        }
        for (let i = 0; i < errors.length; i += 1000) {
          await trx
            .insertInto('field_errors')
            .values(errors.slice(i, i + 1000))
            .execute();
        }
      });
    },

    /**
     * Writes the hourly figures of the hour that starts at `hour` from the raw entries (again, when it was written
     * before: the hour may have been incomplete then).
     */
    async rollUp(hour: Date) {
      const start = new Date(Math.floor(hour.getTime() / hourMs) * hourMs);
      const end = new Date(start.getTime() + hourMs);
      type Group = Omit<FieldHourTable, 'hour' | 'p75' | 'p95'> & { values: number[] };
      const groups = new Map<string, Group>();
      const add = (key: string, fresh: () => Group, count: number, value: number | null) => {
        let group = groups.get(key);
        if (!group) groups.set(key, (group = fresh()));
        group.count += count;
        if (value !== null) group.values.push(value);
      };
      await eachEntry({ since: start, until: end }, (row) =>
        add(
          `${keyOf(row)}\u0000${row.kind}\u0000${row.name}`,
          () => ({
            remote: row.remote,
            version: row.version,
            route: row.route,
            kind: row.kind,
            name: row.name,
            count: 0,
            values: [],
          }),
          row.count,
          row.value,
        ),
      );
      // The most frequent messages of each version are kept by name; the rest, however many, are one row.
      const messages = new Map<string, Map<string, number>>();
      for (const group of groups.values()) {
        if (group.kind !== 'error') continue;
        const version = `${group.remote}\u0000${group.version}`;
        if (!messages.has(version)) messages.set(version, new Map());
        const counts = messages.get(version)!;
        counts.set(group.name, (counts.get(group.name) ?? 0) + group.count);
      }
      for (const [version, counts] of messages) {
        if (counts.size <= maxErrorMessages) continue;
        const kept = new Set(
          [...counts]
            .sort((a, b) => b[1] - a[1])
            .slice(0, maxErrorMessages)
            .map(([name]) => name),
        );
        const folded = [...groups].filter(
          ([, group]) =>
            group.kind === 'error' &&
            `${group.remote}\u0000${group.version}` === version &&
            !kept.has(group.name) &&
            group.name !== otherErrors,
        );
        for (const [key, group] of folded) {
          groups.delete(key);
          add(
            `${keyOf(group)}\u0000error\u0000${otherErrors}`,
            () => ({ ...group, name: otherErrors, count: 0, values: [] }),
            group.count,
            null,
          );
        }
      }
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('field_hours').where('hour', '=', start.toISOString()).execute();
        const values = [...groups.values()].map(({ values: samples, ...group }) => ({
          ...group,
          hour: start.toISOString(),
          p75: percentile(samples, 0.75) ?? null,
          p95: percentile(samples, 0.95) ?? null,
        }));
        // In slices: SQLite takes at most 32,766 bound values a statement.
        for (let i = 0; i < values.length; i += 500) {
          await trx
            .insertInto('field_hours')
            .values(values.slice(i, i + 500))
            .execute();
        }
      });
      return groups.size;
    },

    /**
     * The hourly figures of the last two hours and this one so far; raw entries past 48 hours (with the networks' keys
     * of their days) and figures past 90 days go, a batch at a time.
     */
    async rollUpAndPurge() {
      const at = now().getTime();
      for (const back of [2, 1, 0]) await this.rollUp(new Date(at - back * hourMs));
      const rawBefore = new Date(at - fieldDataRetention.rawHours * hourMs);
      let raw = 0;
      for (const table of ['field_views', 'field_errors'] as const) {
        for (;;) {
          const deleted = await db
            .deleteFrom(table)
            .where('id', 'in', (query) =>
              query
                .selectFrom(table)
                .select('id')
                .where('received_at', '<', rawBefore.toISOString())
                .limit(batchRows * 5),
            )
            .executeTakeFirst();
          raw += Number(deleted.numDeletedRows);
          if (Number(deleted.numDeletedRows) < batchRows * 5) break;
          await yieldToOthers();
        }
      }
      await networkHasher(db).purge(rawBefore);
      const hours = await db
        .deleteFrom('field_hours')
        .where('hour', '<', new Date(at - fieldDataRetention.hourlyDays * 24 * hourMs).toISOString())
        .executeTakeFirst();
      return { raw, hours: Number(hours.numDeletedRows) };
    },

    /**
     * What a release decision may count of one version since `since` (before `until`, on `routes` when given): the views
     * the site vouched for, a valid ticket each, each ticket one view (its first counting beacon), at most
     * `maxPerNetwork` views per network and hour, first come first counted; a view erred when any beacon of it carried
     * an error. Reads the ticketed rows alone (an index of their own), a slice at a time (`lookRows`) with other work
     * let in between, so that a look costs what the ticketed views cost, never the unticketed flood beside them, and
     * holds no request for longer than a slice. With `reports`, every report received is counted too (a scan of the window's rows: for the
     * commands).
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
      /** Count the views that reached this goal too (a beacon with it and the view's ticket): `conversions`. */
      goal?: string;
    }): Promise<VersionFigures> {
      const figures: VersionFigures = { views: 0, errorViews: 0, networks: 0, routes: [], perNetwork: [] };
      if (routes && !routes.length) return { ...figures, ...(reports && { reports: 0, reportNetworks: 0 }) };
      const where = within({ since, until, remote, version, routes }, 0);
      const network = networkColumn(since, now());
      // SQLite's planner would take the release index, which holds every report: told to read the ticketed rows' own.
      const ticketedIndex = isPostgresDb(db) ? sql`` : sql`indexed by field_views_ticketed`;
      type Row = {
        id: number;
        received_at: string;
        network: string;
        route: string;
        counted: number;
        errors: number;
        inp: number | null;
        lcp: number | null;
        ticket: string;
        goal: string | null;
      };
      type View = {
        id: number;
        network: string;
        hour: string;
        route: string;
        erred: boolean;
        inp?: number;
        lcp?: number;
      };
      // Each ticket's view (its first counting beacon), erred when any of its beacons erred, its slowest values.
      const views = new Map<string, View>();
      const later = new Map<string, Pick<View, 'erred' | 'inp' | 'lcp'>>();
      // The tickets of views that reached `goal`: a goal's beacon often comes before its view's counting one.
      const converted = new Set<string>();
      let after: { at: string; id: number } | undefined;
      for (;;) {
        const { rows } = await sql<Row>`select v.id, v.received_at, ${network} as network, v.route, v.counted,
            v.errors, v.inp, v.lcp, v.ticket, v.goal
          from field_views v ${ticketedIndex}
          where v.ticket is not null and ${where}
            ${after ? sql`and (v.received_at, v.id) > (${after.at}, ${after.id})` : sql``}
          order by v.received_at, v.id limit ${lookRows(db)}`.execute(db);
        for (const row of rows) {
          if (row.goal !== null) {
            if (row.goal === goal) converted.add(row.ticket);
            continue;
          }
          const known = views.get(row.ticket) ?? later.get(row.ticket);
          if (!known && row.counted) {
            const hour = row.received_at.slice(0, 13);
            views.set(row.ticket, { id: Number(row.id), network: row.network, hour, route: row.route, erred: false });
          } else if (!known) later.set(row.ticket, { erred: false });
          const view = (views.get(row.ticket) ?? later.get(row.ticket))!;
          view.erred ||= row.errors > 0;
          if (row.inp !== null) view.inp = Math.max(view.inp ?? 0, Number(row.inp));
          if (row.lcp !== null) view.lcp = Math.max(view.lcp ?? 0, Number(row.lcp));
        }
        if (rows.length < lookRows(db)) break;
        after = { at: rows.at(-1)!.received_at, id: Number(rows.at(-1)!.id) };
        // However many ticketed rows a flood left, a look holds no request for longer than a batch.
        await yieldToOthers();
      }
      const networks = new Map<string, NetworkEvidence>();
      const perNetworkHour = new Map<string, number>();
      const seenRoutes = new Set<string>();
      const inp: number[] = [];
      const lcp: number[] = [];
      for (const [ticket, view] of [...views].sort(([, a], [, b]) => a.id - b.id)) {
        const slot = `${view.network}\u0000${view.hour}`;
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
        if (goal !== undefined && converted.has(ticket)) {
          evidence.conversions = (evidence.conversions ?? 0) + 1;
          figures.conversions = (figures.conversions ?? 0) + 1;
        }
        // Each network's first value of each vital: one draw from every network, however many views it brought.
        if (view.inp !== undefined) {
          evidence.inp ??= view.inp;
          inp.push(view.inp);
        }
        if (view.lcp !== undefined) {
          evidence.lcp ??= view.lcp;
          lcp.push(view.lcp);
        }
        seenRoutes.add(view.route);
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
          .selectFrom('field_views')
          .select([
            sql<number | string>`coalesce(sum(weight), 0)`.as('reports'),
            sql<number | string>`count(distinct network)`.as('networks'),
          ])
          .where(where)
          .executeTakeFirst();
        figures.reports = Number(received?.reports ?? 0);
        figures.reportNetworks = Number(received?.networks ?? 0);
      }
      return figures;
    },

    /**
     * The space the raw reports take, in bytes: on PostgreSQL their tables with indexes; on SQLite the database file's
     * used pages (the raw reports are nearly all of it). Cheap: read from the catalog, never by scanning.
     */
    async rawBytes(): Promise<number> {
      const { rows } = await sql<{ bytes: number | string }>`${
        isPostgresDb(db)
          ? sql`select pg_total_relation_size('field_views') + pg_total_relation_size('field_errors') as bytes`
          : sql`select (page_count - freelist_count) * page_size as bytes from pragma_page_count(), pragma_freelist_count(), pragma_page_size()`
      }`.execute(db);
      return Number(rows[0]?.bytes ?? 0);
    },

    /**
     * Views, errors and p75s per remote, version and route since `since`: exact, from the raw entries, within their 48
     * hours; from the hourly figures beyond (each p75 then the views-weighted mean of the hours' p75s).
     */
    async figures({
      since,
      remote,
    }: {
      since: Date;
      remote?: string;
    }): Promise<{ figures: FieldFigures[]; exact: boolean }> {
      const rawFrom = now().getTime() - fieldDataRetention.rawHours * hourMs;
      if (since.getTime() >= rawFrom) {
        return { figures: figuresOf(await entries({ since, remote })), exact: true };
      }
      let query = db.selectFrom('field_hours').selectAll().where('hour', '>=', since.toISOString());
      if (remote) query = query.where('remote', '=', remote);
      const figures = figuresOf((await query.execute()).map(hourly));
      return { figures, exact: false };
    },

    /**
     * Views and p75s per remote, route and device (phone or desktop) since `since`, from the raw entries: their 48
     * hours are as far back as the split goes (the hourly figures do not keep it). Versions together.
     */
    async deviceFigures({ since, remote }: { since: Date; remote?: string }): Promise<FieldFigures[]> {
      const rows = await entries({ since, remote });
      return figuresOf(
        rows.filter((row) => row.kind !== 'error').map((row) => ({ ...row, version: '', device: row.viewport ?? '' })),
      );
    },

    /**
     * One route's trend since `since`, an hour a row, oldest first: views, errors and each metric's p75, every version
     * together. Exact from the raw entries within their 48 hours; from the hourly figures beyond (views-weighted p75s).
     */
    async hourlyTrend({
      since,
      route,
      remote,
    }: {
      since: Date;
      route: string;
      remote?: string;
    }): Promise<HourFigures[]> {
      const hours = new Map<string, ReturnType<typeof tally>>();
      const hourOf = (at: string) => new Date(Math.floor(Date.parse(at) / hourMs) * hourMs).toISOString();
      const count = (hour: string, row: Counted) => {
        if (!hours.has(hour)) hours.set(hour, tally());
        hours.get(hour)!.add(row);
      };
      const rawFrom = new Date(
        Math.floor((now().getTime() - fieldDataRetention.rawHours * hourMs) / hourMs + 1) * hourMs,
      );
      if (since < rawFrom) {
        let query = db
          .selectFrom('field_hours')
          .selectAll()
          .where('hour', '>=', since.toISOString())
          .where('hour', '<', rawFrom.toISOString())
          .where('route', '=', route);
        if (remote) query = query.where('remote', '=', remote);
        for (const row of await query.execute()) count(row.hour, hourly(row));
      }
      const rawSince = since < rawFrom ? rawFrom : since;
      for (const row of await entries({ since: rawSince, remote, routes: [route] })) count(hourOf(row.at), row);
      return [...hours]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([hour, counts]) => {
          const { views, errorViews, errors, p75 } = counts.figures();
          return { hour, views, errorViews, errors, p75 };
        });
    },

    /** The most frequent errors since `since`, with the version each was first seen in. */
    async topErrors({ since, remote, limit = 20 }: { since: Date; remote?: string; limit?: number }) {
      let query = db
        .selectFrom('field_errors')
        .select(['remote', 'version', 'message', 'frame', 'count', 'received_at'])
        .where('received_at', '>=', since.toISOString())
        .orderBy('received_at')
        .orderBy('id');
      if (remote) query = query.where('remote', '=', remote);
      const errors = new Map<
        string,
        {
          remote: string;
          message: string;
          frame: string | null;
          count: number;
          firstVersion: string;
          firstSeen: string;
          versions: Set<string>;
        }
      >();
      for (const row of await query.execute()) {
        const key = `${row.remote}\u0000${row.message}`;
        const known = errors.get(key);
        if (known) {
          known.count += row.count;
          known.versions.add(row.version);
        } else {
          errors.set(key, {
            remote: row.remote,
            message: row.message,
            frame: row.frame,
            count: row.count,
            firstVersion: row.version,
            firstSeen: row.received_at,
            versions: new Set([row.version]),
          });
        }
      }
      return [...errors.values()].sort((a, b) => b.count - a.count).slice(0, limit);
    },
  };
}

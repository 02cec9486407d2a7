import type { FieldReport, VitalName } from '@gift/contracts/field-data';
import { vitalNames } from '@gift/contracts/field-data';
import type { Insertable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { FieldErrorTable, FieldHourTable, FieldViewTable } from '../db/schema.ts';

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
  /** Errors reported, all counted. */
  errors: number;
  p75: Partial<Record<VitalName, number>>;
  /** How many values each p75 rests on. */
  samples: Partial<Record<VitalName, number>>;
}

/** One version's views, errors and p75 INP over a window, and the routes its views were on. */
export interface VersionFigures {
  views: number;
  errors: number;
  inpP75?: number;
  routes: string[];
}

const keyOf = (row: { remote: string; version: string; route: string; device?: string }) =>
  `${row.remote}\u0000${row.version}\u0000${row.route}\u0000${row.device ?? ''}`;

/** One hour's figures of one route: what `rum --by hour` prints. */
export interface HourFigures {
  hour: string;
  views: number;
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
  let errors = 0;
  const values = new Map<string, number[]>();
  const weighted = new Map<string, [sum: number, count: number]>();
  return {
    add({ kind, name, value, count, hourly }: Counted) {
      if (kind === 'view') views += count;
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
      return { views, errors, p75, samples };
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

/** A beacon's rows: one with its tags and vitals (when it counts a view or carries a vital), one per error. */
function rowsOf(report: FieldReport, at: string) {
  const tags = { received_at: at, route: report.route, remote: report.remote, version: report.version };
  const view: Insertable<FieldViewTable> = {
    ...tags,
    shell: report.shell,
    viewport: report.viewport,
    counted: report.view ? 1 : 0,
  };
  const errors: Insertable<FieldErrorTable>[] = [];
  let vitals = 0;
  for (const entry of report.entries) {
    if ('metric' in entry) {
      view[vitalColumns[entry.metric]] = entry.value;
      vitals++;
    } else errors.push({ ...tags, message: entry.error, frame: entry.frame ?? null, count: entry.count });
  }
  return { views: report.view || vitals ? [view] : [], errors };
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
  kind: 'view' | 'metric' | 'error';
  name: string;
  value: number | null;
  count: number;
}

/**
 * Stores reports in groups (group commit): a report that arrives while a write is under way goes with the others that
 * arrived meanwhile in the next one. Each caller's promise settles when its own report is committed, so an answer
 * never says stored before it is; under load one commit serves many reports instead of one each.
 */
export function groupCommit(write: (reports: FieldReport[]) => Promise<void>) {
  let waiting: { report: FieldReport; resolve: () => void; reject: (error: unknown) => void }[] = [];
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
  return (report: FieldReport) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ report, resolve, reject });
      if (!writing) void drain();
    });
}

/** Field data: reports as they arrive, their hourly figures, and what the teams and the release watch read. */
export function fieldData(db: Db, now: () => Date = () => new Date()) {
  /** The raw figures since `since` (and before `until`), of one remote or version when given, as entries. */
  async function entries(filter: {
    since: Date;
    until?: Date;
    remote?: string;
    version?: string;
    routes?: string[];
  }): Promise<Entry[]> {
    let views = db.selectFrom('field_views').selectAll().where('received_at', '>=', filter.since.toISOString());
    let errors = db.selectFrom('field_errors').selectAll().where('received_at', '>=', filter.since.toISOString());
    if (filter.until) {
      views = views.where('received_at', '<', filter.until.toISOString());
      errors = errors.where('received_at', '<', filter.until.toISOString());
    }
    if (filter.remote) {
      views = views.where('remote', '=', filter.remote);
      errors = errors.where('remote', '=', filter.remote);
    }
    if (filter.version) {
      views = views.where('version', '=', filter.version);
      errors = errors.where('version', '=', filter.version);
    }
    if (filter.routes) {
      views = views.where('route', 'in', filter.routes);
      errors = errors.where('route', 'in', filter.routes);
    }
    const found: Entry[] = [];
    for (const row of await views.execute()) {
      const tags = {
        remote: row.remote,
        version: row.version,
        route: row.route,
        viewport: row.viewport,
        at: row.received_at,
      };
      if (row.counted) found.push({ ...tags, kind: 'view', name: '', value: null, count: 1 });
      for (const name of vitalNames) {
        const value = row[vitalColumns[name]];
        if (value !== null) found.push({ ...tags, kind: 'metric', name, value, count: 1 });
      }
    }
    for (const row of await errors.execute()) {
      found.push({
        remote: row.remote,
        version: row.version,
        route: row.route,
        at: row.received_at,
        kind: 'error',
        name: row.message,
        value: null,
        count: row.count,
      });
    }
    return found;
  }

  return {
    /** Stores one beacon's entries, as they came. */
    async store(report: FieldReport) {
      await this.storeAll([report]);
    },

    /** Stores several beacons in one transaction (one commit, one wait for the disk). */
    async storeAll(reports: FieldReport[]) {
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
      const rows = await entries({ since: start, until: end });
      const groups = new Map<string, Omit<FieldHourTable, 'hour' | 'p75' | 'p95'> & { values: number[] }>();
      for (const row of rows) {
        const key = `${keyOf(row)}\u0000${row.kind}\u0000${row.name}`;
        const group = groups.get(key) ?? {
          remote: row.remote,
          version: row.version,
          route: row.route,
          kind: row.kind,
          name: row.name,
          count: 0,
          values: [],
        };
        group.count += row.count;
        if (row.value !== null) group.values.push(row.value);
        groups.set(key, group);
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

    /** The hourly figures of the last two hours and this one so far; raw entries past 48 hours and figures past 90 days go. */
    async rollUpAndPurge() {
      const at = now().getTime();
      for (const back of [2, 1, 0]) await this.rollUp(new Date(at - back * hourMs));
      const rawBefore = new Date(at - fieldDataRetention.rawHours * hourMs).toISOString();
      let raw = 0;
      for (const table of ['field_views', 'field_errors'] as const) {
        const deleted = await db.deleteFrom(table).where('received_at', '<', rawBefore).executeTakeFirst();
        raw += Number(deleted.numDeletedRows);
      }
      const hours = await db
        .deleteFrom('field_hours')
        .where('hour', '<', new Date(at - fieldDataRetention.hourlyDays * 24 * hourMs).toISOString())
        .executeTakeFirst();
      return { raw, hours: Number(hours.numDeletedRows) };
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
     * What visitors of one version of a remote saw since `since` (and before `until`), on `routes` when given (the release
     * watch compares two versions on the routes both were seen on): views, errors and the p75 of INP.
     */
    async versionFigures({
      remote,
      version,
      since,
      until,
      routes,
    }: {
      remote: string;
      version: string;
      since: Date;
      until?: Date;
      routes?: string[];
    }): Promise<VersionFigures> {
      if (routes && !routes.length) return { views: 0, errors: 0, routes: [] };
      const rows = await entries({ since, until, remote, version, routes });
      const figures: VersionFigures = { views: 0, errors: 0, routes: [] };
      const seen = new Set<string>();
      const inp: number[] = [];
      for (const row of rows) {
        if (row.kind === 'view') {
          figures.views += row.count;
          seen.add(row.route);
        } else if (row.kind === 'error') figures.errors += row.count;
        else if (row.name === 'INP' && row.value !== null) inp.push(row.value);
      }
      figures.routes = [...seen].sort();
      const inpP75 = percentile(inp, 0.75);
      return inpP75 === undefined ? figures : { ...figures, inpP75 };
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
          const { views, errors, p75 } = counts.figures();
          return { hour, views, errors, p75 };
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

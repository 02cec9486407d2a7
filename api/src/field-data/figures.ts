// figures: what the teams read of their pages in the field (views, errors, p75s per route, hour, device), from the
// raw reports within their 48 hours and the hourly figures beyond.
import type { VitalName } from '@gift/contracts/field-data';
import { vitalNames } from '@gift/contracts/field-data';
import type { Db } from '../db/database.ts';
import type { FieldHourTable } from '../db/schema.ts';
import { inBatches, rawRows, within, type Filter } from './batches.ts';
import { fieldDataRetention, vitalColumns } from './storage.ts';

export const hourMs = 3_600_000;

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

export const keyOf = (row: { remote: string; version: string; route: string; device?: string }) =>
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
export const hourly = (row: FieldHourTable) => ({ ...row, value: row.p75, hourly: true });

/** One figure as the roll-ups and the figures read it: a view, a vital's value, or an error's count. */
export interface Entry {
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

/** Distinct error messages kept per remote, version and hour; the rest are counted as one. */
export const maxErrorMessages = 20;
export const otherErrors = 'other errors';

/** The raw entries of a window, as the figures and the roll-ups read them. */
export function rawEntries(db: Db) {
  /** The next batch of a raw table's rows of `filter` after row `afterId`, in id order. */
  const views = (filter: Filter, afterId: number) =>
    db.selectFrom('field_views').selectAll().where(within(filter, afterId)).orderBy('id').limit(rawRows(db)).execute();
  const errors = (filter: Filter, afterId: number) =>
    db.selectFrom('field_errors').selectAll().where(within(filter, afterId)).orderBy('id').limit(rawRows(db)).execute();

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
    await inBatches(db, views, filter, (row) => {
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
    await inBatches(db, errors, filter, (row) => {
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

  return { eachEntry, entries };
}

/** What the teams' commands read. */
export function figureReads(db: Db, now: () => Date) {
  const { entries } = rawEntries(db);
  return {
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

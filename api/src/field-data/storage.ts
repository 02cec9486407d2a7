// storage: what a report leaves in the database: its raw rows (the figures' source), and for a view the site vouched
// for, the one row of that view that its reports add up into and its goals, once each (what a decision reads).
import type { FieldReport } from '@gift/contracts/field-data';
import { sql, type Insertable, type Transaction } from 'kysely';
import { isPostgresDb, type Db } from '../db/database.ts';
import type { Database, FieldCountedTable, FieldErrorTable, FieldViewTable } from '../db/schema.ts';

/** Raw entries are kept two days, hourly figures ninety. */
export const fieldDataRetention = { rawHours: 48, hourlyDays: 90 } as const;

/** A report as it is stored: what the page sent (its ticket read), with what the API found of it. */
export type StoredReport = Omit<FieldReport, 'ticket'> & {
  /** The client network's hash ('' when it has none), and with the keys of the two days before. */
  network?: string;
  earlierNetworks?: [string, string];
  /** The nonce of the valid ticket the report brought, if any. */
  ticket?: string | null;
  /** Whether that ticket's view was its visitor's assignment (a new visitor's first view in a test). */
  assigned?: boolean;
  /**
   * How many reports it stands for (1, or more while the storage budget samples); 0 adds it to its view (a ticket's
   * row, its goal) and stores no raw row (the budget left it out).
   */
  weight?: number;
};

export const vitalColumns = { LCP: 'lcp', INP: 'inp', CLS: 'cls', FCP: 'fcp', TTFB: 'ttfb' } as const;

/** A beacon's raw rows: one with its tags, vitals and how it counts, and one per error. A goal's report has none. */
function rowsOf(report: StoredReport, at: string) {
  const weight = report.weight ?? 1;
  if (report.goal || weight === 0) return { views: [], errors: [] };
  const tags = { received_at: at, route: report.route, remote: report.remote, version: report.version };
  const view: Insertable<FieldViewTable> = {
    ...tags,
    shell: report.shell,
    viewport: report.viewport,
    counted: report.view ? 1 : 0,
    network: report.network ?? '',
    network_1: report.earlierNetworks?.[0] ?? report.network ?? '',
    network_2: report.earlierNetworks?.[1] ?? report.network ?? '',
    ticket: report.ticket ?? null,
    goal: null,
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

/** The view a ticketed report adds to: its first report's time and network, and what each report adds. */
function countedOf(report: StoredReport, at: string): Insertable<FieldCountedTable> {
  const metric = (name: 'INP' | 'LCP') =>
    report.entries.find((entry) => 'metric' in entry && entry.metric === name) as { value: number } | undefined;
  return {
    remote: report.remote,
    version: report.version,
    ticket: report.ticket!,
    route: report.route,
    received_at: at,
    network: report.network ?? '',
    network_1: report.earlierNetworks?.[0] ?? report.network ?? '',
    network_2: report.earlierNetworks?.[1] ?? report.network ?? '',
    counted: report.view ? 1 : 0,
    assigned: report.assigned ? 1 : 0,
    erred: report.entries.some((entry) => 'error' in entry) ? 1 : 0,
    inp: metric('INP')?.value ?? null,
    lcp: metric('LCP')?.value ?? null,
  };
}

/**
 * Adds ticketed reports to their views: a view's row is made by its first report and only ever grows (counted once a
 * counting report came, erred once one erred, its slowest INP and LCP), so however many reports bring one ticket, it
 * stays one row; a goal is one row per ticket and goal.
 */
async function addToViews(trx: Transaction<Database>, reports: StoredReport[], at: string, postgres: boolean) {
  // Of SQLite's scalar max and PostgreSQL's greatest, one ignores a null and the other does not: say it.
  const larger = (column: 'counted' | 'assigned' | 'erred' | 'inp' | 'lcp') =>
    postgres
      ? sql`greatest(field_counted.${sql.ref(column)}, excluded.${sql.ref(column)})`
      : sql`max(coalesce(field_counted.${sql.ref(column)}, excluded.${sql.ref(column)}), coalesce(excluded.${sql.ref(column)}, field_counted.${sql.ref(column)}))`;
  for (const report of reports) {
    if (!report.ticket) continue;
    if (report.goal) {
      await trx
        .insertInto('field_goals')
        .values({
          remote: report.remote,
          version: report.version,
          ticket: report.ticket,
          goal: report.goal,
          received_at: at,
        })
        .onConflict((conflict) => conflict.columns(['remote', 'version', 'goal', 'ticket']).doNothing())
        .execute();
      continue;
    }
    await trx
      .insertInto('field_counted')
      .values(countedOf(report, at))
      .onConflict((conflict) =>
        conflict.columns(['remote', 'version', 'ticket']).doUpdateSet({
          counted: larger('counted'),
          assigned: larger('assigned'),
          erred: larger('erred'),
          inp: larger('inp'),
          lcp: larger('lcp'),
        } as never),
      )
      .execute();
  }
}

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

export function reportStorage(db: Db, now: () => Date) {
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
      const ticketed = reports.filter((report) => report.ticket);
      if (!views.length && !errors.length && !ticketed.length) return;
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
        await addToViews(trx, ticketed, at, isPostgresDb(db));
      });
    },

    /**
     * Whether a report with this ticket has been added before (of a view, or of this goal): a report that brings a
     * ticket again is a replay for the budget and the views metric, however valid the ticket.
     */
    async ticketSeen(report: { remote: string; version: string; ticket: string; goal?: string }): Promise<boolean> {
      const found = report.goal
        ? await db
            .selectFrom('field_goals')
            .select('ticket')
            .where('remote', '=', report.remote)
            .where('version', '=', report.version)
            .where('goal', '=', report.goal)
            .where('ticket', '=', report.ticket)
            .executeTakeFirst()
        : await db
            .selectFrom('field_counted')
            .select('counted')
            .where('remote', '=', report.remote)
            .where('version', '=', report.version)
            .where('ticket', '=', report.ticket)
            .executeTakeFirst();
      // A view's row made by a later beacon that came first is not yet counted: its counting report is still fresh.
      return found !== undefined && (report.goal !== undefined || (found as { counted: number }).counted === 1);
    },

    /**
     * The space field data takes, in bytes: on PostgreSQL its tables with indexes; on SQLite the database file's used
     * pages (field data is nearly all of it). Cheap: read from the catalog, never by scanning.
     */
    async rawBytes(): Promise<number> {
      const { rows } = await sql<{ bytes: number | string }>`${
        isPostgresDb(db)
          ? sql`select pg_total_relation_size('field_views') + pg_total_relation_size('field_errors')
              + pg_total_relation_size('field_counted') + pg_total_relation_size('field_goals') as bytes`
          : sql`select (page_count - freelist_count) * page_size as bytes from pragma_page_count(), pragma_freelist_count(), pragma_page_size()`
      }`.execute(db);
      return Number(rows[0]?.bytes ?? 0);
    },
  };
}

// batches: reading raw rows a slice at a time, other work (requests, health checks) let in between.
import { sql, type RawBuilder } from 'kysely';
import { isPostgresDb, type Db } from '../db/database.ts';

/** How many rows a batch reads: small enough that no query holds the event loop for long. */
export const batchRows = 500;
/**
 * How many raw rows a read takes a batch. SQLite answers within the calling task (better-sqlite3 is synchronous), and
 * an answer of the same process crosses several turns of the event loop, each of which may wait for a batch: a quarter
 * of PostgreSQL's there (whose queries leave the loop free). Measured with `pnpm bench:field-data` (docs/operations.md).
 */
export const rawRows = (db: Db) => (isPostgresDb(db) ? batchRows : batchRows / 4);
/** Lets other work (requests, health checks) run between two batches. */
export const yieldToOthers = () => new Promise((resolve) => setImmediate(resolve));

/** Which raw rows a read takes. */
export interface Filter {
  since: Date;
  until?: Date;
  remote?: string;
  version?: string;
  routes?: string[];
}

/** The raw rows' condition for `filter`, after row `afterId` (the rows are read in batches, in id order). */
export const within = (filter: Filter, afterId: number) =>
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

/** Every row `batch` reads for `filter`, handed to `visit` a batch at a time, other work let in between. */
export async function inBatches<Row extends { id: number }>(
  db: Db,
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

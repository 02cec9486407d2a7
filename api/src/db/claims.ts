import { PostgresAdapter, sql, type Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';

/** Queues that workers on several instances take rows from: the column that marks a row done. */
const queues = { email_outbox: 'sent_at', webhook_deliveries: 'delivered_at' } as const;
type Queue = keyof typeof queues;

/**
 * Claims up to `limit` due rows of a queue for this worker until `now + leaseMs`, oldest first, in one statement:
 * rows another worker holds are skipped (on PostgreSQL `FOR UPDATE SKIP LOCKED`; SQLite runs one writer at a
 * time). A worker that dies leaves its rows to the others once the lease lapses.
 */
export async function claimDue<Q extends Queue>(
  db: Db,
  queue: Q,
  { now, leaseMs, limit }: { now: Date; leaseMs: number; limit: number },
): Promise<Selectable<Database[Q]>[]> {
  const at = now.toISOString();
  const due = sql`select id from ${sql.table(queue)}
    where ${sql.ref(queues[queue])} is null and failed_at is null and next_attempt_at <= ${at}
      and (claimed_until is null or claimed_until <= ${at})
    order by id limit`;
  // A read first: most runs find nothing, and an update, even of no row, waits for the one SQLite writer.
  if ((await sql`${due} 1`.execute(db)).rows.length === 0) return [];
  const skipLocked = db.getExecutor().adapter instanceof PostgresAdapter ? sql`for update skip locked` : sql``;
  const claimed = await sql<Selectable<Database[Q]>>`update ${sql.table(queue)}
    set claimed_until = ${new Date(now.getTime() + leaseMs).toISOString()}
    where id in (${due} ${limit} ${skipLocked})
    returning *`.execute(db);
  const id = (row: Selectable<Database[Q]>) => (row as { id: number }).id;
  return [...claimed.rows].sort((a, b) => id(a) - id(b));
}

/**
 * The claimed rows, one at a time, for as long as the claim safely holds: once half the lease has passed, the rest
 * are released for any worker to take at once. No row is sent after its lease could have lapsed and another
 * worker taken it (a slow mail server made a batch outlast a short lease, and two instances sent the same email).
 */
export async function* whileClaimed<T extends { id: number }>(
  db: Db,
  queue: Queue,
  rows: T[],
  leaseMs: number,
): AsyncGenerator<T> {
  const safeUntil = Date.now() + leaseMs / 2;
  for (const [index, row] of rows.entries()) {
    if (Date.now() > safeUntil) {
      const rest = rows.slice(index).map((left) => left.id);
      await sql`update ${sql.table(queue)} set claimed_until = null where id in (${sql.join(rest)})`.execute(db);
      return;
    }
    yield row;
  }
}

/**
 * Takes the named lease for `holder` until `now + forMs` if nobody holds it: true for the one instance that got
 * it. The hourly purge runs where this says so, once an hour across all instances.
 */
export async function takeLease(db: Db, name: string, holder: string, now: Date, forMs: number): Promise<boolean> {
  const lease = await db.selectFrom('leases').select('until').where('name', '=', name).executeTakeFirst();
  if (lease && lease.until > now.toISOString()) return false;
  const taken = await db
    .updateTable('leases')
    .set({ holder, until: new Date(now.getTime() + forMs).toISOString() })
    .where('name', '=', name)
    .where('until', '<=', now.toISOString())
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

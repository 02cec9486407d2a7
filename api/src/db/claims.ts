import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { PostgresAdapter, sql, type Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';

/** Queues that workers on several instances take rows from: the column that marks a row done. */
const queues = { email_outbox: 'sent_at', webhook_deliveries: 'delivered_at' } as const;
type Queue = keyof typeof queues;

/**
 * Claims up to `limit` due rows of a queue for `holder` until `now + leaseMs`, oldest first, in one statement:
 * rows another worker holds are skipped (on PostgreSQL `FOR UPDATE SKIP LOCKED`; SQLite runs one writer at a
 * time). A worker that dies leaves its rows to the others once the lease lapses, or to itself at once when it starts
 * again (`releaseOwnClaims`).
 */
export async function claimDue<Q extends Queue>(
  db: Db,
  queue: Q,
  { now, leaseMs, limit, holder }: { now: Date; leaseMs: number; limit: number; holder: string },
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
    set claimed_until = ${new Date(now.getTime() + leaseMs).toISOString()}, claimed_by = ${holder}
    where id in (${due} ${limit} ${skipLocked})
    returning *`.execute(db);
  const id = (row: Selectable<Database[Q]>) => (row as { id: number }).id;
  return [...claimed.rows].sort((a, b) => id(a) - id(b));
}

/**
 * The claimed rows, one at a time, for as long as the claim safely holds: the lease is renewed for the rows left
 * every third of it, and only the rows it still holds are sent (a renewal that fails, the database away, ends the
 * batch: the rest wait for their lease to lapse). No row is sent after its lease could have lapsed and another worker
 * taken it (a slow mail server made a batch outlast a short lease, and two instances sent the same email).
 */
export async function* whileClaimed<T extends { id: number }>(
  db: Db,
  queue: Queue,
  rows: T[],
  {
    leaseMs,
    holder,
    claimedAt = Date.now(),
  }: {
    leaseMs: number;
    holder: string;
    /**
     * When the lease began: the `now` it was claimed with, which the claim's queries may have outlasted (PostgreSQL
     * slow to answer under load). Counting from after them made a batch send past its lease, and another instance
     * sent the same email (1 of 350 in a cluster check).
     */
    claimedAt?: number;
  },
): AsyncGenerator<T> {
  let renewed = Math.min(claimedAt, Date.now());
  let held = new Set(rows.map((row) => row.id));
  for (const [index, row] of rows.entries()) {
    if (Date.now() - renewed > leaseMs / 3) {
      const rest = rows.slice(index).filter((left) => held.has(left.id));
      if (rest.length === 0) return;
      const now = new Date();
      try {
        held = await renewClaims(db, queue, rest, { now, leaseMs, holder });
      } catch {
        return;
      }
      renewed = now.getTime();
    }
    if (held.has(row.id)) yield row;
  }
}

/** Renews `holder`'s claim on the rows it still holds until `now + leaseMs`; the ids it holds now. */
async function renewClaims(
  db: Db,
  queue: Queue,
  rows: { id: number }[],
  { now, leaseMs, holder }: { now: Date; leaseMs: number; holder: string },
): Promise<Set<number>> {
  const { rows: still } = await sql<{ id: number }>`update ${sql.table(queue)}
    set claimed_until = ${new Date(now.getTime() + leaseMs).toISOString()}
    where id in (${sql.join(rows.map((row) => row.id))}) and claimed_by = ${holder}
      and claimed_until > ${now.toISOString()}
    returning id`.execute(db);
  return new Set(still.map((row) => Number(row.id)));
}

/**
 * Holds the claim on one row (as `whileClaimed` hands it out, with two thirds of its lease left at least) while work
 * on it runs, however long: renewed every third of the lease. `signal` aborts the work when the claim is lost (another
 * worker took the row after a lapse), or a sixth of the lease before it could lapse unrenewed (the database away or
 * slow): the work stops before another worker may take the row. `release` when the work is done.
 */
export function holdClaim(
  db: Db,
  queue: Queue,
  row: { id: number },
  { leaseMs, holder }: { leaseMs: number; holder: string },
) {
  const controller = new AbortController();
  let released = false;
  let lapse: NodeJS.Timeout | undefined;
  let renewal: NodeJS.Timeout | undefined;
  const abort = (reason: string) => {
    if (released) return;
    controller.abort(new Error(reason));
    release();
  };
  const heldUntil = (at: number) => {
    clearTimeout(lapse);
    lapse = setTimeout(
      () => abort('the claim could lapse before it was renewed (the database away)'),
      at - leaseMs / 6 - Date.now(),
    );
  };
  const renew = async () => {
    const now = new Date();
    try {
      const held = await renewClaims(db, queue, [row], { now, leaseMs, holder });
      if (!held.has(row.id)) return abort('the claim was lost: another worker may take the row');
      if (!released) heldUntil(now.getTime() + leaseMs);
    } catch {
      // The database away: tried again at the next renewal; the lapse timer stops the work in time.
    }
    if (!released) renewal = setTimeout(renew, leaseMs / 3);
  };
  const release = () => {
    released = true;
    clearTimeout(lapse);
    clearTimeout(renewal);
  };
  heldUntil(Date.now() + (2 * leaseMs) / 3);
  renewal = setTimeout(renew, leaseMs / 3);
  return { signal: controller.signal, release };
}

/**
 * Who holds a claim: this instance's name (INSTANCE_NAME) and a boot id, its host, process and a random tag, so that
 * two live processes never share one, whatever their names: `name#host/pid/tag`.
 */
export const holderOf = (name: string, boot = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`) =>
  `${name}#${boot}`;

/**
 * Whether the process that held `holder` is gone for sure: a process of this host whose pid runs no more. Anything
 * else (another host, a live pid, a name without a boot id) may still be sending: its claims wait out their lease.
 */
export function holderGone(holder: string): boolean {
  const [host, pid] = (holder.split('#')[1] ?? '').split('/');
  if (host !== hostname() || !pid || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Lets go of what earlier processes of instance `name` claimed and did not finish, when they are gone for sure
 * (`isGone`): a restarted instance takes back its own rows at once; a second live process of the same name takes
 * nothing from the first.
 */
export async function releaseClaimsOfGone(db: Db, name: string, isGone: (holder: string) => boolean = holderGone) {
  let released = 0;
  const prefix = `${name.replace(/[\\%_]/g, (character) => `\\${character}`)}#%`;
  for (const [queue, done] of Object.entries(queues)) {
    const { rows } = await sql<{ holder: string }>`select distinct claimed_by as holder from ${sql.table(queue)}
      where claimed_by like ${prefix} escape '\\' and claimed_until is not null and ${sql.ref(done)} is null`.execute(
      db,
    );
    for (const { holder } of rows) {
      if (!isGone(holder)) continue;
      const result = await sql`update ${sql.table(queue)} set claimed_until = null
        where claimed_by = ${holder} and claimed_until is not null and ${sql.ref(done)} is null`.execute(db);
      released += Number(result.numAffectedRows ?? 0);
    }
  }
  return released;
}

/**
 * Runs `record` (what marks a row done once its send succeeded) until it works, waiting 0.2 s, 0.4 s … up to 2 s
 * between tries while the database is away, for at most `forMs` (the time the row's claim keeps others off): a mail
 * that was sent is not sent again because marking it sent failed once. False when it never worked.
 */
export async function recordSurely(record: () => Promise<unknown>, forMs: number, isAway: (error: Error) => boolean) {
  const until = Date.now() + forMs;
  for (let wait = 200; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      await record();
      return true;
    } catch (error) {
      if (!isAway(error as Error) || Date.now() + wait > until) return false;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
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

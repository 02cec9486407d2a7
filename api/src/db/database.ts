import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Pool } from 'pg';
import { migrateToLatest } from './migrations.ts';
import type { Database } from './schema.ts';
import { faultReason, isDatabaseAway, outageLog, type OutageLogger } from './faults.ts';

export type Db = Kysely<Database>;

/** How long PostgreSQL may keep the servers waiting (docs/configuration.md); SQLite waits 5 s for its file's lock. */
export interface DatabaseTimeouts {
  /** DATABASE_CONNECT_TIMEOUT_MS: to open a connection, or to get one from a full pool. */
  connectMs: number;
  /** DATABASE_STATEMENT_TIMEOUT_MS: one statement (PostgreSQL cancels it; the client gives up 1 s later). */
  statementMs: number;
  /** DATABASE_LOCK_TIMEOUT_MS: waiting for a lock another transaction holds. */
  lockMs: number;
}

export const defaultDatabaseTimeouts: DatabaseTimeouts = { connectMs: 2_000, statementMs: 5_000, lockMs: 2_000 };

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  databaseTimeouts?: DatabaseTimeouts;
}

const pools = new WeakMap<Db, Pool>();
/** A connection of its own for the health checks, so that a full pool never starves them. */
const healthPools = new WeakMap<Db, Pool>();
/** A server's log for what its pool tells of by itself (commands without one print a Node warning). */
const poolLogs = new WeakMap<Db, OutageLogger>();

/** The connection pool under a PostgreSQL database, for what needs one of its own (the shared rate limits). */
export const postgresPoolOf = (db: Db): Pool | undefined => pools.get(db);
/** Whether `db` is PostgreSQL's (SQLite's otherwise). */
export const isPostgresDb = (db: Db) => pools.has(db);

/** A folder only this user may open (0700), made when missing and tightened when it was not. */
export function privateFolder(path: string) {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}

/**
 * Which database the options name, as an operator reads it: the SQLite file's path, or PostgreSQL's host, port and
 * database (never the user or password of the URL).
 */
export function databaseName({ databaseUrl, dataDir }: DatabaseOptions): string {
  if (!databaseUrl) return `SQLite ${join(dataDir, 'requests.sqlite')}`;
  try {
    const url = new URL(databaseUrl);
    return `PostgreSQL ${url.hostname || 'localhost'}:${url.port || 5432}${url.pathname || '/'}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL is not a URL)';
  }
}

/**
 * SQLite file under the data directory by default, PostgreSQL when a URL names one. One query codebase either way.
 * Each driver is loaded when it is named: a command that opens no database starts without them (0.3 s less).
 */
export async function openDatabase({
  databaseUrl,
  dataDir,
  databaseTimeouts = defaultDatabaseTimeouts,
}: DatabaseOptions): Promise<Db> {
  if (databaseUrl) {
    const { default: pg } = await import('pg');
    const { connectMs, statementMs, lockMs } = databaseTimeouts;
    // A stopped or locked database answers nothing: each wait is bounded, and the error says which (isDatabaseAway).
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 10,
      connectionTimeoutMillis: connectMs,
      statement_timeout: statementMs,
      lock_timeout: lockMs,
      query_timeout: statementMs ? statementMs + 1_000 : undefined,
    });
    // PostgreSQL ending an idle pooled connection (a restart, `pg_terminate_backend`) is reported on the pool, and an
    // `error` event with no listener ends the process: every page with it. The pool drops that connection and opens
    // another for the next query; said once per 10 s at most.
    let warnedAt = -Infinity;
    pool.on('error', (error) => {
      if (performance.now() - warnedAt < 10_000) return;
      warnedAt = performance.now();
      const message = `PostgreSQL ended an idle connection (${error.message}); the next query opens another`;
      const log = poolLogs.get(db);
      if (log) log.warn({ reason: error.message }, message);
      else process.emitWarning(message);
    });
    // A connection that ends while a query holds it (PostgreSQL stopped, the network cut) fails that query, and is an
    // `error` on its client, which the pool listens to only while the client is idle: without a listener of its own,
    // an uncaught exception.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    pools.set(db, pool);
    // One connection, short waits, closed after 5 s idle and never keeping the process alive.
    const health = new pg.Pool({
      connectionString: databaseUrl,
      max: 1,
      connectionTimeoutMillis: 1_000,
      query_timeout: 1_000,
      idleTimeoutMillis: 5_000,
      allowExitOnIdle: true,
    });
    health.on('error', () => {});
    health.on('connect', (client) => client.on('error', () => {}));
    healthPools.set(db, health);
    return db;
  }
  // Requests, addresses and (in the outbox folder) live links: for the service's user alone. SQLite gives its WAL
  // and shared-memory files the database file's mode.
  privateFolder(dataDir);
  const path = join(dataDir, 'requests.sqlite');
  closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  const { default: SQLite } = await import('better-sqlite3');
  const file = new SQLite(path);
  // WAL for concurrent readers; FULL so that a committed request survives a power cut, not only a crash.
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = FULL');
  file.pragma('busy_timeout = 5000');
  file.pragma('foreign_keys = ON');
  return new Kysely<Database>({ dialect: new SqliteKeepingCause({ database: file }) });
}

/**
 * SQLite's dialect, keeping a failed transaction's cause: SQLite rolls back by itself on some errors (a full disk),
 * and Kysely's own `rollback` then failed with "no transaction is active", which replaced SQLITE_FULL. Transactions
 * begin IMMEDIATE: they take the write lock first, waiting for another process's (the operators' CLI beside the
 * service) within the busy timeout; a deferred one that read first and then wrote failed at once with SQLITE_BUSY
 * when the other had written meanwhile (`requests complete` during a burst of requests), which no wait can mend.
 */
class SqliteKeepingCause extends SqliteDialect {
  override createDriver() {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection) => {
      try {
        await rollback(connection);
      } catch (error) {
        if (!/no transaction is active/.test((error as Error).message)) throw error;
      }
    };
    return driver;
  }
}

/**
 * Migrates PostgreSQL on a connection without the timeouts (an instance waits for another's migrations to end), or
 * SQLite on the database itself.
 */
async function migrateOnce(db: Db, options: DatabaseOptions) {
  if (!isPostgresDb(db)) return migrateToLatest(db);
  const unbounded = await openDatabase({
    ...options,
    databaseTimeouts: { connectMs: 10_000, statementMs: 0, lockMs: 0 },
  });
  try {
    await migrateToLatest(unbounded);
  } finally {
    await unbounded.destroy();
  }
}

export async function openMigratedDatabase(options: DatabaseOptions): Promise<Db> {
  const db = await openDatabase(options);
  await migrateOnce(db, options);
  return db;
}

/**
 * For the servers: the database at once, migrated in the background once `migrate(log)` is called. While it cannot be
 * reached the migrations are tried again after 0.5 s, 1 s, 2 s … up to 5 s, said once at warn when it starts and
 * once when they ran; `ready()` tells the API (503 until then) and the workers (they wait). Anything else failing (a
 * migration's own error) rejects: the process should end with it.
 */
export async function openDatabaseWhenReachable(options: DatabaseOptions) {
  const db = await openDatabase(options);
  let done = false;
  /** Migrates once reachable, telling `log` (the server's own, as JSON lines) of the database meanwhile and after. */
  async function migrate(log: OutageLogger) {
    poolLogs.set(db, log);
    const outage = outageLog(log);
    const what = `the database (${databaseName(options)})`;
    for (let wait = 500; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        await migrateOnce(db, options);
        outage.works(what);
        done = true;
        return;
      } catch (error) {
        const cause = ((error as Error).cause as Error | undefined) ?? (error as Error);
        if (!isDatabaseAway(cause)) throw error;
        outage.failed(
          what,
          faultReason(cause),
          'pages are served; requests that need it answer 503 until it is reached',
        );
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
  return { db, migrate, ready: () => done };
}

/** Whether the database answers now, on a connection of its own with 1 s waits where it has a pool. */
export async function isDatabaseReachable(db: Db): Promise<boolean> {
  try {
    const health = healthPools.get(db);
    if (health) await health.query('select 1');
    else await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

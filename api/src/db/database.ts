import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Pool } from 'pg';
import { migrateToLatest } from './migrations.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
}

const pools = new WeakMap<Db, Pool>();

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
export async function openDatabase({ databaseUrl, dataDir }: DatabaseOptions): Promise<Db> {
  if (databaseUrl) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    // PostgreSQL ending an idle pooled connection (a restart, `pg_terminate_backend`) is reported on the pool, and an
    // `error` event with no listener ends the process: every page with it. The pool drops that connection and opens
    // another for the next query; said once per 10 s at most.
    let warnedAt = -Infinity;
    pool.on('error', (error) => {
      if (performance.now() - warnedAt < 10_000) return;
      warnedAt = performance.now();
      process.emitWarning(`PostgreSQL ended an idle connection (${error.message}); the next query opens another`);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    pools.set(db, pool);
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
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
}

export async function openMigratedDatabase(options: DatabaseOptions): Promise<Db> {
  const db = await openDatabase(options);
  await migrateToLatest(db);
  return db;
}

export async function isDatabaseReachable(db: Db): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

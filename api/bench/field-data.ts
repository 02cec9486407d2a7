import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import type { FieldReport } from '@gift/contracts/field-data';
import { readConfig } from '../src/config.ts';
import { openMigratedDatabase, type Db } from '../src/db/database.ts';
import { fieldData } from '../src/field-data/repository.ts';
import { createApiServer } from '../src/server.ts';
import { postgresDatabase, postgresServer } from '../test/databases.ts';

/**
 * Field data under load and on disk:
 * 1. 200 reports a second for 60 s (FIELD_LOAD_RATE, FIELD_LOAD_SECONDS) against one API instance on SQLite: no 5xx,
 *    every accepted report stored, p99 of the answers (goal: under 50 ms). Fails on a 5xx or a lost report.
 * 2. The storage a million reports take, on SQLite and PostgreSQL: 100,000 typical reports (a view, five vitals and,
 *    for one in ten, an error) stored and measured, scaled to a million.
 */
const rate = Number(process.env.FIELD_LOAD_RATE ?? 200);
const seconds = Number(process.env.FIELD_LOAD_SECONDS ?? 60);
const sampleReports = Number(process.env.FIELD_STORAGE_REPORTS ?? 100_000);

const routes = [
  ['/', 'consumer'],
  ['/vendor', 'vendor'],
  ['/privacy', 'legal'],
  ['/business', 'business'],
] as const;

/** A typical beacon: the view, its five vitals, and for one in ten an error. */
function report(index: number): FieldReport {
  const [route, remote] = routes[index % routes.length]!;
  return {
    route,
    remote,
    version: '20261125.093000.000-1a2b3c4d',
    shell: 'Bx12_abcd',
    viewport: index % 3 ? 'phone' : 'desktop',
    view: true,
    entries: [
      { metric: 'LCP', value: 1200 + (index % 1700) },
      { metric: 'FCP', value: 800 + (index % 900) },
      { metric: 'TTFB', value: 90 + (index % 300) },
      { metric: 'CLS', value: (index % 20) / 1000 },
      { metric: 'INP', value: 40 + (index % 400) },
      ...(index % 10 === 0
        ? [
            {
              error: 'TypeError: Cannot read properties of undefined (reading "price")',
              frame: 'at g (a.js:1:2)',
              count: 1,
            },
          ]
        : []),
    ],
  };
}

const views = async (db: Db) =>
  Number(
    (
      await db
        .selectFrom('field_views')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('counted', '=', 1)
        .executeTakeFirst()
    )?.n,
  );

async function load() {
  const dataDir = mkdtempSync(join(tmpdir(), 'field-bench-'));
  const config = { ...readConfig({ DATA_DIR: dataDir }), fieldDataPerIp: 1e9 };
  const db = await openMigratedDatabase(config);
  const app = await createApiServer({ db, config });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  let sequence = 0;
  const result = await autocannon({
    url: address,
    connections: 10,
    duration: seconds,
    overallRate: rate,
    requests: [
      {
        method: 'POST',
        path: '/api/rum',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(report(sequence++)) }),
      },
    ],
  });
  // Requests still in flight when the run ends are stored but not counted: stored may exceed accepted.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const stored = await views(db);
  await app.close();
  await db.destroy();
  const count = (status: string) => result.statusCodeStats?.[status as '200']?.count ?? 0;
  const codes = Object.entries(result.statusCodeStats ?? {});
  const fiveHundreds = codes.filter(([code]) => code.startsWith('5')).reduce((sum, [, s]) => sum + (s?.count ?? 0), 0);
  const accepted = count('204');
  console.log(
    `\nPOST /api/rum, ${rate} reports/s for ${seconds} s, one API instance on SQLite (WAL, synchronous=FULL), Node ${process.version}\n`,
  );
  console.log('| answered | 204   | 4xx | 5xx | errors | stored | req/s | p50 (ms) | p99 (ms) |');
  console.log('|----------|-------|-----|-----|--------|--------|-------|----------|----------|');
  const fourHundreds = codes.filter(([code]) => code.startsWith('4')).reduce((sum, [, s]) => sum + (s?.count ?? 0), 0);
  console.log(
    `| ${result.requests.total} | ${accepted} | ${fourHundreds} | ${fiveHundreds} | ${result.errors + result.timeouts} | ${stored} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} |`,
  );
  console.log(`\np99 ${result.latency.p99} ms (goal: under 50 ms)`);
  if (fiveHundreds > 0) {
    console.error('No report may be answered with a 5xx.');
    process.exitCode = 1;
  }
  if (stored < accepted) {
    console.error(`Every accepted report must be stored: ${accepted} accepted, ${stored} stored.`);
    process.exitCode = 1;
  }
}

/** Stores `sampleReports` typical reports through the repository, 1,000 to a commit. */
async function fill(db: Db) {
  const data = fieldData(db);
  for (let start = 0; start < sampleReports; start += 1000) {
    const count = Math.min(1000, sampleReports - start);
    await data.storeAll(Array.from({ length: count }, (_, offset) => report(start + offset)));
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

async function storage() {
  const rows: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'field-storage-'));
  const sqlite = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
  await fill(sqlite);
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(sqlite);
  await sqlite.destroy();
  const sqliteBytes = statSync(join(dataDir, 'requests.sqlite')).size;
  rows.push(
    `| SQLite     | ${mib((sqliteBytes * 1_000_000) / sampleReports).padStart(13)} | ${String(Math.round(sqliteBytes / sampleReports)).padStart(16)} |`,
  );

  const postgres = await postgresServer();
  if (postgres) {
    const db = await postgresDatabase(postgres.url);
    await fill(db);
    const size = await sql<{
      bytes: string;
    }>`select pg_total_relation_size('field_views') + pg_total_relation_size('field_errors') as bytes`.execute(db);
    const bytes = Number(size.rows[0]!.bytes);
    rows.push(
      `| PostgreSQL | ${mib((bytes * 1_000_000) / sampleReports).padStart(13)} | ${String(Math.round(bytes / sampleReports)).padStart(16)} |`,
    );
    await db.destroy();
    postgres.stop();
  } else {
    rows.push('| PostgreSQL | not measured here (no PostgreSQL) | |');
  }
  console.log(
    `\nStorage of raw reports (a view, five vitals, an error in one of ten; indexes included), measured with ${sampleReports.toLocaleString('en')} and scaled to a million\n`,
  );
  console.log('| database   | a million     | bytes per report |');
  console.log('|------------|---------------|------------------|');
  for (const line of rows) console.log(line);
}

await load();
await storage();

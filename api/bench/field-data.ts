import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import type { FieldReport } from '@gift/contracts/field-data';
import { readConfig } from '../src/config.ts';
import { takeLease } from '../src/db/claims.ts';
import { isPostgresDb, openMigratedDatabase, type Db } from '../src/db/database.ts';
import { judgeRollout } from '../src/field-data/decision.ts';
import { fieldData } from '../src/field-data/repository.ts';
import { viewTickets } from '../src/field-data/tickets.ts';
import { createApiServer } from '../src/server.ts';
import { postgresDatabase, postgresServer } from '../test/databases.ts';

/**
 * Field data under load and on disk:
 * 1. 200 reports a second for 60 s (FIELD_LOAD_RATE, FIELD_LOAD_SECONDS), each with its view ticket, against one API
 *    instance on SQLite: no 5xx, every accepted report stored, p99 of the answers (goal: under 50 ms). Fails on a 5xx or a lost report.
 * 2. The largest allowed beacons (about 15 KB, 45 distinct invented error messages each) from 60 addresses at their
 *    allowed 60 a minute for 60 s (FIELD_ABUSE_SECONDS): the bytes stored per accepted report, raw and hourly together
 *    (at most 2 KB), and the slowest `/api/health/live` while that hour is rolled up (at most 100 ms). Reports with an
 *    unknown version, a foreign remote or an unknown route: 400, nothing stored. Fails past any of these.
 * 3. The storage a million reports take, on SQLite and PostgreSQL: 100,000 typical reports (a view, five vitals and,
 *    for one in ten, an error) stored and measured, scaled to a million.
 * 4. The release watch's look over a flood, on SQLite and PostgreSQL: FIELD_LOOK_REPORTS (1,000,000) reports of one
 *    version stored in the last hour, 95 in 100 without a ticket (as a flood leaves them); answers of the same process
 *    (`/api/health/live`, served from memory as a page is) asked one after another for FIELD_LOOK_SECONDS (10), without
 *    a look and then with a canary's and its current version's figures read back to back. Prints the slowest answer of
 *    each and the looks' time; fails when looking makes the slowest answer more than 50 ms slower.
 */
const rate = Number(process.env.FIELD_LOAD_RATE ?? 200);
const seconds = Number(process.env.FIELD_LOAD_SECONDS ?? 60);
const sampleReports = Number(process.env.FIELD_STORAGE_REPORTS ?? 100_000);
const abuseSeconds = Number(process.env.FIELD_ABUSE_SECONDS ?? 60);
const lookReports = Number(process.env.FIELD_LOOK_REPORTS ?? 1_000_000);
const lookSeconds = Number(process.env.FIELD_LOOK_SECONDS ?? 10);
/** How many raw rows one replayed ticket leaves for the looks to ignore (issue 75's goal: a million). */
const oneTicketRows = Number(process.env.FIELD_ONE_TICKET_ROWS ?? 1_000_000);
/**
 * BENCH_TIMING=report (CI): a time is printed with its goal and not judged (this host's speed is not the code's); what
 * is lost, refused or stored still fails the run. `pnpm bench` judges the times too.
 */
const timingReportOnly = process.env.BENCH_TIMING === 'report';
/** A time over its goal: `MISSED` (which `pnpm bench` collects) and a failed run, or reported under BENCH_TIMING=report. */
function timeMissed(what: string) {
  console.log(`${timingReportOnly ? 'Reported, not judged:' : 'MISSED'} field data: ${what}`);
  if (!timingReportOnly) process.exitCode = 1;
}
const p99GoalMs = Number(process.env.BENCH_GOAL_FIELD_P99_MS ?? 50);

const routes = [
  ['/', 'consumer'],
  ['/vendor', 'vendor'],
  ['/privacy', 'legal'],
  ['/business', 'business'],
] as const;

const version = '20261125.093000000-1a2b3c4d';

/** A typical beacon: the view, its five vitals, and for one in ten an error. */
function report(index: number): FieldReport {
  const [route, remote] = routes[index % routes.length]!;
  return {
    route,
    remote,
    version,
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
  const tickets = viewTickets(config.cookieSecrets);
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
        // Each with its view ticket, as a page's beacon comes (unticketed reports are stored only up to a cap a
        // version and hour: a flood's, tried in the looks below).
        setupRequest: (request) => {
          const body = report(sequence++);
          const ticket = tickets.issue({ remote: body.remote, version: body.version, route: body.route });
          return {
            ...request,
            headers: { ...request.headers, cookie: `${ticket.name}=${ticket.value}` },
            body: JSON.stringify(body),
          };
        },
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
  console.log(`\np99 ${result.latency.p99} ms (goal: under ${p99GoalMs} ms)`);
  if (result.latency.p99 >= p99GoalMs)
    timeMissed(`ingestion p99 ${result.latency.p99} ms (goal under ${p99GoalMs} ms)`);
  if (fiveHundreds > 0) {
    console.error('No report may be answered with a 5xx.');
    process.exitCode = 1;
  }
  if (stored < accepted) {
    console.error(`Every accepted report must be stored: ${accepted} accepted, ${stored} stored.`);
    process.exitCode = 1;
  }
}

/** The largest beacon the schema allows (16 KiB): a view, 45 distinct invented error messages of 300 characters. */
function largest(index: number): FieldReport {
  const invent = (n: number) => `Error ${index}-${n} ${'x'.repeat(300)}`.slice(0, 300);
  return {
    route: '/vendor',
    remote: 'vendor',
    version,
    shell: 'S'.repeat(100),
    viewport: 'phone',
    view: true,
    entries: Array.from({ length: 45 }, (_, n) => ({ error: invent(n), count: 1000 })),
  };
}

/** Bytes the field-data tables take in an SQLite database (pages of their tables and indexes). */
async function fieldBytes(db: Db) {
  const { rows } = await sql<{
    bytes: number;
  }>`select sum(pgsize) as bytes from dbstat where name like 'field%'`.execute(db);
  return Number(rows[0]?.bytes ?? 0);
}

async function abuse() {
  const dataDir = mkdtempSync(join(tmpdir(), 'field-abuse-'));
  const config = { ...readConfig({ DATA_DIR: dataDir, TRUST_PROXY: '1' }) };
  const db = await openMigratedDatabase(config);
  const app = await createApiServer({
    db,
    config,
    knownVersion: (remote, known) => remote === 'vendor' && known === version,
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const empty = await fieldBytes(db);
  let sequence = 0;
  const beacon = JSON.stringify(largest(0));
  const result = await autocannon({
    url: address,
    connections: 10,
    duration: abuseSeconds,
    // 60 addresses, each at its allowed 60 reports a minute.
    overallRate: 60,
    requests: [
      {
        method: 'POST',
        path: '/api/rum',
        setupRequest: (request) => {
          const index = sequence++;
          return {
            ...request,
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.${index % 60}.0.1` },
            body: JSON.stringify(largest(index)),
          };
        },
      },
    ],
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const accepted = result.statusCodeStats?.['204']?.count ?? 0;
  // The hour rolled up while health is asked every 10 ms.
  const data = fieldData(db);
  let slowest = 0;
  let rolling = true;
  const health = () => fetch(`${address}/api/health/live`).then((response) => response.arrayBuffer());
  // A connection made before: what is measured is the server's answer, not the client's first connect.
  for (let i = 0; i < 5; i++) await health();
  const probe = (async () => {
    while (rolling) {
      const began = performance.now();
      await health();
      slowest = Math.max(slowest, performance.now() - began);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const rollStarted = performance.now();
  await data.rollUp(new Date());
  const rollMs = performance.now() - rollStarted;
  rolling = false;
  await probe;
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  const perReport = (await fieldBytes(db)) - empty;
  // Claims of what does not exist: nothing of them stored.
  const rowsBefore = await views(db);
  const refused = [];
  for (const claim of [
    { ...largest(1), version: 'x'.repeat(100) },
    { ...largest(1), remote: 'legal' },
    { ...largest(1), route: '/nowhere' },
  ]) {
    const response = await fetch(`${address}/api/rum`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.99.0.1' },
      body: JSON.stringify(claim),
    });
    refused.push(response.status);
  }
  const storedAfter = (await views(db)) - rowsBefore;
  await app.close();
  await db.destroy();
  const bytesPer = accepted ? perReport / accepted : 0;
  console.log(
    `\nThe largest beacons (${(beacon.length / 1024).toFixed(1)} KB, 45 invented messages) from 60 addresses for ${abuseSeconds} s:\n`,
  );
  console.log(
    '| answered | 204 | 429 | stored per report (raw + hourly) | roll-up of the hour | slowest health during it |',
  );
  console.log(
    '|----------|-----|-----|----------------------------------|---------------------|--------------------------|',
  );
  console.log(
    `| ${result.requests.total} | ${accepted} | ${result.statusCodeStats?.['429']?.count ?? 0} | ${Math.round(bytesPer)} B | ${Math.round(rollMs)} ms | ${slowest.toFixed(1)} ms |`,
  );
  console.log(
    `\nClaims of an unknown version, a foreign remote, an unknown route: ${refused.join(', ')}; rows stored: ${storedAfter}`,
  );
  if (bytesPer > 2048) {
    console.error(`At most 2 KB stored per accepted report: ${Math.round(bytesPer)} B.`);
    process.exitCode = 1;
  }
  if (slowest > 100) timeMissed(`health answered in ${slowest.toFixed(1)} ms during the roll-up (goal within 100 ms)`);
  if (refused.some((status) => status !== 400) || storedAfter !== 0) {
    console.error('A report of what does not exist must be answered 400 and stored nowhere.');
    process.exitCode = 1;
  }
}

/** Stores `sampleReports` typical reports through the repository, 1,000 to a commit. */
async function fill(db: Db) {
  const data = fieldData(db);
  for (let start = 0; start < sampleReports; start += 1000) {
    const count = Math.min(1000, sampleReports - start);
    // As the API stores them: each with its network's hash and its view ticket's nonce.
    await data.storeAll(
      Array.from({ length: count }, (_, offset) => ({
        ...report(start + offset),
        network: `n${(start + offset) % 5000}`.padEnd(8, '0'),
        ticket: (start + offset).toString(36).padStart(8, '0'),
      })),
    );
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

/** `lookReports` reports of one version in the last hour, one in 20 with a ticket, from 20,000 networks. */
async function flood(db: Db, version: string) {
  const data = fieldData(db);
  for (let start = 0; start < lookReports; start += 2000) {
    const count = Math.min(2000, lookReports - start);
    await data.storeAll(
      Array.from({ length: count }, (_, offset) => {
        const index = start + offset;
        return {
          route: '/vendor',
          remote: 'vendor',
          version,
          shell: 'Bx12_abcd',
          viewport: 'phone' as const,
          view: true,
          entries: [
            { metric: 'LCP' as const, value: 1200 + (index % 1700) },
            { metric: 'INP' as const, value: 40 + (index % 400) },
          ],
          network: `n${index % 20_000}`.padEnd(8, '0'),
          ticket: index % 20 === 0 ? index.toString(36).padStart(8, '0') : null,
        };
      }),
    );
  }
}

/** The slowest of the answers asked one after another for `lookSeconds`, in ms, and how many. */
async function slowestAnswer(address: string) {
  let slowest = 0;
  let answers = 0;
  const until = Date.now() + lookSeconds * 1000;
  while (Date.now() < until) {
    const started = performance.now();
    await (await fetch(`${address}/api/health/live`)).arrayBuffer();
    slowest = Math.max(slowest, performance.now() - started);
    answers += 1;
  }
  return { slowest, answers };
}

/**
 * A million raw rows of one ticket (a replayed view, as one sender could send), its view's row made by its first
 * report as the intake makes it: what a look must not pay for.
 */
async function oneTicketFlood(db: Db, version: string) {
  await fieldData(db).storeAll([{ ...report(0), version, ticket: 'oneticket', network: 'n0000000' }]);
  const at = new Date().toISOString();
  const columns = sql`(received_at, route, remote, version, shell, viewport, counted, network, network_1, network_2,
    ticket, errors, weight, lcp, inp)`;
  const row = sql`${at}, '/vendor', 'vendor', ${version}, 'Bx12_abcd', 'phone', 1, 'n0000000', 'n0000000', 'n0000000',
    'oneticket', 0, 1, 1200, 80`;
  const rows = oneTicketRows - 1;
  await (
    isPostgresDb(db)
      ? sql`insert into field_views ${columns} select ${row} from generate_series(1, ${rows})`
      : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
        insert into field_views ${columns} select ${row} from n`
  ).execute(db);
}

/** One look of the watch at the canary of the last hour, as `pnpm rollout` would have it judged. */
const look = (db: Db) =>
  judgeRollout(db, {
    remote: 'vendor',
    version: 'v-canary',
    current: 'v-current',
    since: new Date(Date.now() - 3_600_000),
    share: 25,
  });

/** The CPU time one look takes, alone (median of 5), in ms. */
async function lookCpu(db: Db) {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const before = process.cpuUsage();
    await look(db);
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((x, y) => x - y)[2]!;
}

async function looks() {
  const rows: string[] = [];
  const budgetMs = 50;
  const cpuBudgetMs = 100;
  const measure = async (name: string, fill: string, db: Db) => {
    const started = performance.now();
    await (fill === 'one ticket' ? oneTicketFlood(db, 'v-canary') : flood(db, 'v-canary'));
    const filled = (performance.now() - started) / 1000;
    // The hourly roll-up of the flood runs now, as it would have while the reports came: then the answers measured
    // wait on the looks alone.
    await fieldData(db).rollUpAndPurge();
    await takeLease(db, 'hourly-purge', 'bench', new Date(), 3_600_000);
    const cpu = await lookCpu(db);
    const config = { ...readConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'field-looks-')) }), fieldDataPerIp: 1e9 };
    const app = await createApiServer({ db, config });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const without = await slowestAnswer(address);
    let looking = true;
    const lookTimes: number[] = [];
    const looker = (async () => {
      while (looking) {
        const at = performance.now();
        await look(db);
        lookTimes.push(performance.now() - at);
        // As the watch's interval does: the next look is a task of its own (SQLite answers within the same one).
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const during = await slowestAnswer(address);
    looking = false;
    await looker;
    await app.close();
    const slowestLook = Math.max(...lookTimes);
    rows.push(
      `| ${name.padEnd(10)} | ${fill.padEnd(10)} | ${(fill === 'one ticket' ? oneTicketRows : lookReports).toLocaleString('en')} in ${filled.toFixed(0)} s | ${cpu.toFixed(0)} ms | ${without.slowest.toFixed(1)} ms (${without.answers}) | ${during.slowest.toFixed(1)} ms (${during.answers}) | ${lookTimes.length}, slowest ${slowestLook.toFixed(0)} ms |`,
    );
    if (during.slowest - without.slowest > budgetMs) {
      timeMissed(
        `${name}, ${fill}: looking made the slowest answer ${(during.slowest - without.slowest).toFixed(0)} ms slower (goal at most ${budgetMs} ms)`,
      );
    }
    if (fill === 'one ticket' && cpu > cpuBudgetMs) {
      timeMissed(
        `${name}, a million rows of one ticket: a look took ${cpu.toFixed(0)} ms of CPU (goal at most ${cpuBudgetMs} ms)`,
      );
    }
  };
  const postgres = await postgresServer();
  // FIELD_LOOK_FILLS=one-ticket: that fill alone.
  for (const fill of (process.env.FIELD_LOOK_FILLS ?? 'flood,one-ticket')
    .split(',')
    .map((name) => name.replace('-', ' '))) {
    const dataDir = mkdtempSync(join(tmpdir(), 'field-looks-'));
    const sqlite = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
    await measure('SQLite', fill, sqlite);
    await sqlite.destroy();
    if (postgres) {
      const db = await postgresDatabase(postgres.url);
      await measure('PostgreSQL', fill, db);
      await db.destroy();
    } else rows.push(`| PostgreSQL | ${fill} | not measured here (no PostgreSQL) | | | | |`);
  }
  postgres?.stop();
  console.log(
    `\nThe release watch's looks over a flood (one report in 20 ticketed, each its own view) and over ${oneTicketRows.toLocaleString('en')} rows of one ticket; CPU of one look alone (median of 5); answers asked one after another for ${lookSeconds} s\n`,
  );
  console.log(
    '| database   | rows       | reports stored | CPU a look | slowest answer, no look (answers) | slowest answer, looking (answers) | looks |',
  );
  console.log(
    '|------------|------------|----------------|------------|-----------------------------------|-----------------------------------|-------|',
  );
  for (const line of rows) console.log(line);
}

// FIELD_BENCH=looks: the looks alone (the look stall, `pnpm bench`); FIELD_BENCH=without-looks: the rest (CI runs it
// with BENCH_TIMING=report: nothing lost under load, the bytes stored, the refusals).
// FIELD_BENCH=timing (`pnpm bench`): the phases that measure a time (the load's p99, health during the roll-up, the looks).
if (process.env.FIELD_BENCH !== 'looks') {
  await load();
  await abuse();
  if (process.env.FIELD_BENCH !== 'timing') await storage();
}
if (process.env.FIELD_BENCH !== 'without-looks') await looks();

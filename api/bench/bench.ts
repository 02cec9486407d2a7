import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { readConfig } from '../src/config.ts';
import { openMigratedDatabase } from '../src/db/database.ts';
import { createApiServer } from '../src/server.ts';
import { freePort, nginxBin, startApi, startNginx, stopAll } from '../cluster/topology.ts';
import { postgresDatabaseUrl, postgresServer } from '../test/databases.ts';

/**
 * Accepted deletion requests per second on SQLite, beside a trivial route of the same server (the framework's
 * ceiling). Everything stays on 127.0.0.1 and stops by itself.
 */
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

const config = {
  ...readConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'api-bench-')) }),
  rateLimit: { perIpPoints: 1e9, perIpWindowSeconds: 1, perEmailPoints: 1e9, perEmailWindowSeconds: 1 },
};
const db = await openMigratedDatabase(config);
const app = await createApiServer({ db, config });
const address = await app.listen({ port: 0, host: '127.0.0.1' });

let sequence = 0;
async function run(title: string, options: Partial<autocannon.Options>, url = address): Promise<Result> {
  return autocannon({ url, connections, duration, title, ...options });
}

/** Deletion requests for new addresses, as fast as `url` takes them. */
const submits = (url = address) =>
  run(
    'POST /api/delete-account',
    {
      requests: [
        {
          method: 'POST',
          path: '/api/delete-account',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({ name: 'Bench User', email: `bench-${sequence++}@example.com`, reason: 'b' }),
          }),
        },
      ],
    },
    url,
  );

const submit = await submits();
const ceiling = await run('GET /api/health/live', { url: `${address}/api/health/live` });

/**
 * What a stranger could time: the answer for an address with an open request against one for a new address, one
 * request at a time over HTTP, alternating, spaced so that the previous request's email is out of the way.
 */
async function answerTimes(rounds: number) {
  const post = async (email: string) => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const started = performance.now();
    const response = await fetch(`${address}/api/delete-account`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench User', email, reason: 'benchmark' }),
    });
    await response.text();
    return performance.now() - started;
  };
  await post('known@example.com');
  const fresh: number[] = [];
  const repeated: number[] = [];
  for (let i = 0; i < rounds; i++) {
    fresh.push(await post(`timing-${i}@example.com`));
    repeated.push(await post('known@example.com'));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  return { fresh: median(fresh), repeated: median(repeated) };
}
const timing = await answerTimes(200);

const accepted = submit.statusCodeStats?.['202']?.count ?? 0;
const stored = Number(
  (
    await db
      .selectFrom('deletion_requests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst()
  )?.n,
);
await app.close();
await db.destroy();

const row = (name: string, result: Result, perSecond: number) =>
  `| ${name.padEnd(26)} | ${perSecond.toFixed(0).padStart(9)} | ${String(result.latency.p99).padStart(10)} | ${String(result.non2xx + result.errors).padStart(13)} |`;
const submitRate = accepted / submit.duration;
const ceilingRate = ceiling.requests.average;
console.log(
  `\n${connections} connections, ${duration} s each, SQLite (WAL, synchronous=FULL), Node ${process.version}\n`,
);
console.log('| route                      |   req/s   | p99 (ms)   | non-2xx/errors |');
console.log('|----------------------------|-----------|------------|----------------|');
console.log(row('POST /api/delete-account', submit, submitRate));
console.log(row('GET /api/health/live', ceiling, ceilingRate));
console.log(
  `\naccepted ${accepted} requests, ${stored} rows stored; ratio to the framework's ceiling: ${((submitRate / ceilingRate) * 100).toFixed(1)}%`,
);
console.log(
  `\nanswer time, median of 200 each: new address ${timing.fresh.toFixed(2)} ms, address with an open request ${timing.repeated.toFixed(2)} ms (difference ${Math.abs(timing.fresh - timing.repeated).toFixed(2)} ms)`,
);
// Requests still in flight when a run ends are stored but not counted, so stored may exceed accepted.
if (stored < accepted) {
  console.error('Every accepted request must be stored.');
  process.exitCode = 1;
}

/**
 * The tested deployment (see `pnpm test:cluster`): nginx in front of one API instance on PostgreSQL, then of two,
 * then the trivial route through the same nginx. Skipped, and said so, without PostgreSQL or nginx.
 */
async function behindNginx() {
  const postgres = await postgresServer();
  if (!postgres || !nginxBin) {
    console.log('\nNo PostgreSQL or nginx here: the several-instance figures are skipped.');
    return;
  }
  const env = {
    DATABASE_URL: await postgresDatabaseUrl(postgres.url),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'api-bench-')),
    RATE_LIMIT_PER_IP: '1000000000',
    RATE_LIMIT_PER_EMAIL: '1000000000',
    TRUST_PROXY: '1',
  };
  const rows: string[] = [];
  try {
    const [first, second] = [await freePort(), await freePort()];
    await startApi(first, env);
    const one = await submits(await startNginx([first]));
    await startApi(second, env);
    const both = await startNginx([first, second]);
    const two = await submits(both);
    const live = await run('GET /api/health/live', {}, `${both}/api/health/live`);
    const rate = (result: Result) => (result.statusCodeStats?.['202']?.count ?? 0) / result.duration;
    rows.push(row('POST, 1 instance', one, rate(one)), row('POST, 2 instances', two, rate(two)));
    rows.push(row('GET /api/health/live, 2', live, live.requests.average));
    console.log(
      `\nBehind nginx, PostgreSQL ${postgres.url.includes('127.0.0.1') ? 'on 127.0.0.1' : ''}, rate limits counted there\n`,
    );
    console.log('| route                      |   req/s   | p99 (ms)   | non-2xx/errors |');
    console.log('|----------------------------|-----------|------------|----------------|');
    for (const line of rows) console.log(line);
    console.log(
      `\ntwo instances against one: ${(rate(two) / rate(one)).toFixed(2)}x; ratio to the trivial route: ${((rate(two) / live.requests.average) * 100).toFixed(1)}%`,
    );
  } finally {
    await stopAll();
    postgres.stop();
  }
}
await behindNginx();

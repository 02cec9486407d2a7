/**
 * `pnpm test:cluster`: the deployment docs/operations.md describes, for real on 127.0.0.1. PostgreSQL, two API instances,
 * nginx from Debian's package balancing them, and an SMTP sink; then the checks of issue 19, printed as a table.
 * Exits 1 when a check fails. Every process it starts is stopped by its own pid when it ends.
 */
import { openDatabase } from '../src/db/database.ts';
import { countRows } from '../test/app.ts';
import { freePort, postgresDatabaseUrl, postgresServer } from '../test/databases.ts';
import { startSmtpSink } from '../test/smtp-sink.ts';
import { nginxBin, sleep, startApi, startNginx, stopAll } from './topology.ts';

type Figures = {
  check: string;
  requests: number;
  accepted: number;
  rows: number | string;
  emails: string;
  fiveXx: number;
  ms: number;
  ok: boolean;
};
const table: Figures[] = [];

async function main() {
  if (!nginxBin) throw new Error('nginx is not installed (apt-get install nginx-light)');
  const postgres = await postgresServer();
  if (!postgres) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const databaseUrl = await postgresDatabaseUrl(postgres.url);
  const db = await openDatabase({ databaseUrl, dataDir: '' });
  // A slow mail server, so that a worker is mid-batch when its instance is killed.
  const smtp = await startSmtpSink({ delayMs: 30 });
  const { received } = smtp;
  const [apiA, apiB] = [await freePort(), await freePort()];

  try {
    // --- two instances start at once on an empty database
    const env = {
      DATABASE_URL: databaseUrl,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      OUTBOX_INTERVAL_MS: '200',
      // Short, so that a dead instance's emails go out within the check. A live instance holds its claim for as long
      // as a send takes (renewed every 2 s), however busy the host.
      OUTBOX_LEASE_MS: '6000',
      // nginx is one hop; the load generator plays the clients' own proxy, so that it can be many addresses.
      TRUST_PROXY: '2',
      ALLOWED_ORIGINS: '*',
    };
    const started = Date.now();
    const instances = await Promise.all([apiA, apiB].map((port) => startApi(port, env)));
    const migrations = await db
      .selectFrom('kysely_migration' as never)
      .selectAll()
      .execute();
    const names = migrations.map((row) => (row as { name: string }).name);
    table.push({
      check: 'both start at once on an empty database',
      requests: 0,
      accepted: 0,
      rows: `${names.length} migrations`,
      emails: '-',
      fiveXx: 0,
      ms: Date.now() - started,
      ok: new Set(names).size === names.length && names.length > 0,
    });

    // --- nginx in front
    const site = await startNginx([apiA, apiB]);

    let client = 0;
    /** One POST through nginx from its own client address. */
    const submit = async (
      body: unknown,
      address = `10.${Math.floor(client / 250) % 250}.${client % 250}.${++client % 250}`,
    ) => {
      const response = await fetch(`${site}/api/delete-account`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      return response.status;
    };
    /** Runs `tasks` with at most `width` at a time. */
    async function concurrently<T>(tasks: (() => Promise<T>)[], width = 20): Promise<T[]> {
      const results: T[] = new Array(tasks.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: width }, async () => {
          while (next < tasks.length) {
            const index = next++;
            results[index] = await tasks[index]!();
          }
        }),
      );
      return results;
    }
    /** Waits until every queued email is sent, then counts what the sink got: received, distinct, duplicates. */
    async function mailSettles() {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const waiting = await db.selectFrom('email_outbox').select('id').where('sent_at', 'is', null).execute();
        if (waiting.length === 0) break;
        await sleep(200);
      }
      await sleep(500);
      const distinct = new Set(received.map((message) => message.messageId)).size;
      return {
        queued: await countRows(db, 'email_outbox'),
        received: received.length,
        distinct,
        duplicates: received.length - distinct,
      };
    }

    // --- 500 submits from concurrent clients across both instances
    let begun = Date.now();
    const bodies = [
      ...Array.from({ length: 300 }, (_, index) => ({ name: 'New', email: `new-${index}@example.com`, reason: 'r' })),
      ...Array.from({ length: 150 }, (_, index) => ({
        name: 'Again',
        email: `again-${index % 50}@example.com`,
        reason: 'r',
      })),
      ...Array.from({ length: 50 }, () => ({ name: 'Bad', email: 'not an address', reason: 'r' })),
    ].sort(() => Math.random() - 0.5);
    const statuses = await concurrently(bodies.map((body) => () => submit(body)));
    const rows = await countRows(db);
    const openPerAddress = await db
      .selectFrom('deletion_requests')
      .select(['email', (eb) => eb.fn.countAll().as('n')])
      .where('open_email', 'is not', null)
      .groupBy('email')
      .having((eb) => eb.fn.countAll(), '>', 1)
      .execute();
    let mail = await mailSettles();
    table.push({
      check: '500 submits: new, repeated and invalid',
      requests: statuses.length,
      accepted: statuses.filter((status) => status === 202).length,
      rows,
      emails: `${mail.received} of ${mail.queued} (${mail.duplicates} twice)`,
      fiveXx: statuses.filter((status) => status >= 500).length,
      ms: Date.now() - begun,
      ok:
        statuses.filter((status) => status === 202).length === 450 &&
        statuses.filter((status) => status === 400).length === 50 &&
        rows === 350 &&
        openPerAddress.length === 0 &&
        mail.received === mail.queued &&
        mail.duplicates === 0,
    });

    // --- the limits give 429 at the same totals as one instance
    begun = Date.now();
    const oneAddress = await concurrently(
      Array.from(
        { length: 30 },
        (_, index) => () => submit({ name: 'A', email: `ip-${index}@example.com`, reason: 'r' }, '192.0.2.1'),
      ),
      5,
    );
    const oneEmail = await concurrently(
      Array.from({ length: 8 }, () => () => submit({ name: 'A', email: 'limit@example.com', reason: 'r' })),
      4,
    );
    table.push({
      check: 'limits: 30 from one address, 8 for one email',
      requests: 38,
      accepted: [...oneAddress, ...oneEmail].filter((status) => status === 202).length,
      rows: `429s: ${oneAddress.filter((status) => status === 429).length} and ${oneEmail.filter((status) => status === 429).length}`,
      emails: '-',
      fiveXx: [...oneAddress, ...oneEmail].filter((status) => status >= 500).length,
      ms: Date.now() - begun,
      ok:
        oneAddress.filter((status) => status === 429).length === 10 &&
        oneEmail.filter((status) => status === 429).length === 3,
    });

    // --- kill -9 of one instance in the middle of a burst
    begun = Date.now();
    const burst = Array.from({ length: 200 }, (_, index) => ({
      name: 'Kill',
      email: `kill-${index}@example.com`,
      reason: 'r',
    }));
    const killer = (async () => {
      await sleep(400);
      instances[0]!.kill('SIGKILL');
    })();
    const burstStatuses = await concurrently(
      burst.map((body) => () => submit(body)),
      10,
    );
    await killer;
    const accepted = burst.filter((_, index) => burstStatuses[index] === 202).map((body) => body.email);
    const stored = await db.selectFrom('deletion_requests').select('email').where('email', 'in', accepted).execute();
    await sleep(6500); // the dead instance's lease
    mail = await mailSettles();
    table.push({
      check: 'kill -9 of one instance mid-burst',
      requests: burst.length,
      accepted: accepted.length,
      rows: `${stored.length} of the 202s stored`,
      emails: `${mail.received} of ${mail.queued} (${mail.duplicates} twice)`,
      fiveXx: burstStatuses.filter((status) => status >= 500).length,
      ms: Date.now() - begun,
      ok: stored.length === accepted.length && accepted.length > 0 && mail.distinct === mail.queued,
    });
  } finally {
    await stopAll();
    await smtp.close();
    await db.destroy();
    postgres.stop();
  }

  console.log('\nTwo API instances behind nginx on one PostgreSQL (pnpm test:cluster)');
  console.log(
    '| check                                         | requests | 202 | stored / 429s               | emails received           | 5xx | ms    |    |',
  );
  console.log(
    '| --------------------------------------------- | -------- | --- | --------------------------- | ------------------------- | --- | ----- | -- |',
  );
  for (const row of table) {
    console.log(
      `| ${row.check.padEnd(45)} | ${String(row.requests).padStart(8)} | ${String(row.accepted).padStart(3)} | ${String(row.rows).padEnd(27)} | ${row.emails.padEnd(25)} | ${String(row.fiveXx).padStart(3)} | ${String(row.ms).padStart(5)} | ${row.ok ? 'ok' : 'NO'} |`,
    );
  }
  if (table.some((row) => !row.ok)) process.exit(1);
}

await main();

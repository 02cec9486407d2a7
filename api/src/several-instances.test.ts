import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { claimDue, holdClaim, holderOf, releaseClaimsOfGone, whileClaimed, takeLease } from './db/claims.ts';
import { deletionRequests } from './deletion-requests/repository.ts';
import { createTransport, deliverDueEmails, messageIdOf, type MailTransport } from './mail/outbox.ts';
import { startSmtpSink } from '../test/smtp-sink.ts';
import { freePort, postgresDatabase, postgresServer } from '../test/databases.ts';
import { openDatabase } from './db/database.ts';
import { testApi } from '../test/app.ts';

const postgres = await postgresServer();
if (!postgres && process.env.CI) throw new Error('CI must run the storage tests against PostgreSQL too');
afterAll(() => postgres?.stop());

/** Several API instances on one PostgreSQL database: what each must see of the others. */
describe.runIf(postgres)('several instances on one PostgreSQL', () => {
  const open = () => postgresDatabase(postgres!.url);

  it('count the per-email limit together, and a restart forgets none of it', async () => {
    const db = await open();
    const instances = [await testApi(db, { perEmailPoints: 5 }), await testApi(db, { perEmailPoints: 5 })];
    const post = (index: number) =>
      instances[index % 2]!.app.inject({
        method: 'POST',
        url: '/api/delete-account',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'Ann', email: 'ann@example.com', reason: 'r' }),
      });
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, index) => post(index)));
    expect(statuses.map((response) => response.statusCode).sort()).toEqual([
      ...Array(5).fill(202),
      ...Array(5).fill(429),
    ]);
    await Promise.all(instances.map(({ app }) => app.close()));

    const restarted = await testApi(db, { perEmailPoints: 5 });
    const again = await restarted.app.inject({
      method: 'POST',
      url: '/api/delete-account',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Ann', email: 'ann@example.com', reason: 'r' }),
    });
    expect(again.statusCode).toBe(429);
    await restarted.app.close();
    await db.destroy();
  });

  it('send each queued email once while two workers deliver at the same time', async () => {
    const db = await open();
    const requests = deletionRequests(db);
    for (let index = 0; index < 30; index++) {
      await requests.submit({ name: 'A', email: `person-${index}@example.com`, reason: 'r' });
    }
    const sent: number[] = [];
    const slow: MailTransport = {
      describe: 'slow',
      send: async ({ id }) => {
        await new Promise((resolve) => setTimeout(resolve, 15));
        sent.push(id);
      },
    };
    const worker = async () => {
      while ((await deliverDueEmails(db, slow, 'x@giftwell.example')).due > 0);
    };
    await Promise.all([worker(), worker()]);
    expect(sent).toHaveLength(30);
    expect(new Set(sent).size).toBe(30);
    await db.destroy();
  });

  it('send each email once when a slow mail server makes a batch outlast the lease', async () => {
    const db = await open();
    const requests = deletionRequests(db);
    for (let index = 0; index < 12; index++) {
      await requests.submit({ name: 'A', email: `slow-${index}@example.com`, reason: 'r' });
    }
    const sent: number[] = [];
    const slow: MailTransport = {
      describe: 'slow',
      send: async ({ id }) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        sent.push(id);
      },
    };
    // A 300 ms lease and 60 ms a message: a batch of 12 takes twice the lease.
    const worker = async () => {
      const until = Date.now() + 10_000;
      while (sent.length < 12 && Date.now() < until) {
        await deliverDueEmails(db, slow, 'x@giftwell.example', new Date(), 300);
      }
    };
    await Promise.all([worker(), worker()]);
    expect(sent.sort((a, b) => a - b)).toEqual([...new Set(sent)]);
    expect(sent).toHaveLength(12);
    await db.destroy();
  });

  it('leave the emails a dead worker claimed to another once its lease lapses', async () => {
    const db = await open();
    await deletionRequests(db).submit({ name: 'A', email: 'ann@example.com', reason: 'r' });
    const now = new Date();
    // This worker claims the email, then dies before sending it.
    expect(await claimDue(db, 'email_outbox', { now, leaseMs: 60_000, limit: 20, holder: 'dead' })).toHaveLength(1);
    const sent: string[] = [];
    const transport: MailTransport = { describe: 'sink', send: async ({ messageId }) => void sent.push(messageId) };
    const at = (ms: number) => new Date(now.getTime() + ms);
    expect(await deliverDueEmails(db, transport, 'x@giftwell.example', at(59_000), 60_000, 'other')).toMatchObject({
      due: 0,
      sent: 0,
    });
    expect(await deliverDueEmails(db, transport, 'x@giftwell.example', at(61_000), 60_000, 'other')).toMatchObject({
      due: 1,
      sent: 1,
    });
    const row = await db.selectFrom('email_outbox').selectAll().executeTakeFirstOrThrow();
    expect(sent).toEqual([messageIdOf(row, 'Giftwell <no-reply@giftwell.example>')]);
    expect(sent[0]).toMatch(/^<outbox-\d+-\d+@giftwell\.example>$/);
    await db.destroy();
  });

  it('take back at start the claims of their earlier process once it is gone, and none of a live one of the same name', async () => {
    const db = await open();
    for (const name of ['A', 'B', 'C']) {
      await deletionRequests(db).submit({ name, email: `${name}@example.com`, reason: 'r' });
    }
    const now = new Date();
    // host:3001's earlier process was killed mid-batch (its pid runs no more); host:3002's still runs (this one).
    const gonePid = spawnSync(process.execPath, ['-e', '']).pid;
    const dead = holderOf('host:3001', `${hostname()}/${gonePid}/aaaaaa`);
    const [first] = await claimDue(db, 'email_outbox', { now, leaseMs: 60_000, limit: 1, holder: dead });
    await claimDue(db, 'email_outbox', { now, leaseMs: 60_000, limit: 1, holder: holderOf('host:3002') });
    // A second process named host:3002 starts beside the first (a copied unit file): it takes back nothing.
    expect(await releaseClaimsOfGone(db, 'host:3002')).toBe(0);
    // host:3001 starts again: its earlier process's email is due at once, host:3002's keeps its lease.
    expect(await releaseClaimsOfGone(db, 'host:3001')).toBe(1);
    const again = await claimDue(db, 'email_outbox', {
      now,
      leaseMs: 60_000,
      limit: 20,
      holder: holderOf('host:3001'),
    });
    expect(again.map((row) => row.id)).toEqual([first!.id, first!.id + 2]);
    // Two processes never share a holder, whatever their names.
    expect(holderOf('host:3001')).not.toBe(holderOf('host:3001'));
    await db.destroy();
  });

  it('hold the claim while a mail server slow at every command and at the message’s end answers, and send each email once', async () => {
    const db = await open();
    for (let index = 0; index < 4; index++) {
      await deletionRequests(db).submit({ name: 'A', email: `crawl-${index}@example.com`, reason: 'r' });
    }
    // The sender and the recipient answered after 400 ms each, the message’s end after 700: a send takes about 1.5 s,
    // past a 900 ms lease. Cut at a third of the lease, as sends once were, none of them arrived once.
    const sink = await startSmtpSink({ commandDelayMs: 400, delayMs: 700 });
    const transport = createTransport({ smtpUrl: `smtp://127.0.0.1:${sink.port}`, dataDir: '/nonexistent' });
    const worker = async (holder: string) => {
      for (const until = Date.now() + 5_000; Date.now() < until;) {
        await deliverDueEmails(db, transport, 'x@giftwell.example', new Date(), 900, holder);
        // Whatever failed is due again at once: a second copy would show.
        await db
          .updateTable('email_outbox')
          .set({ next_attempt_at: new Date(0).toISOString() })
          .execute();
      }
    };
    await Promise.all([worker(holderOf('one')), worker(holderOf('two'))]);
    const ids = sink.received.map((email) => email.messageId);
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    const rows = await db.selectFrom('email_outbox').select(['sent_at', 'attempts']).execute();
    expect(rows.every((row) => row.sent_at !== null && row.attempts === 0)).toBe(true);
    await sink.close();
    await db.destroy();
  });

  it('abort a send, its connection closed, once another worker has taken its email', async () => {
    const db = await open();
    await deletionRequests(db).submit({ name: 'A', email: 'taken@example.com', reason: 'r' });
    // Each command answered after 600 ms: the email is taken from this worker (as if its lease had lapsed) while its
    // send waits for the first answers.
    const sink = await startSmtpSink({ commandDelayMs: 600 });
    const transport = createTransport({ smtpUrl: `smtp://127.0.0.1:${sink.port}`, dataDir: '/nonexistent' });
    const delivering = deliverDueEmails(db, transport, 'x@giftwell.example', new Date(), 900, 'slow');
    await new Promise((resolve) => setTimeout(resolve, 400));
    await db.updateTable('email_outbox').set({ claimed_by: 'other' }).execute();
    expect((await delivering).sent).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // whatever a closed connection still had in flight
    expect(sink.received).toEqual([]);
    const [row] = await db.selectFrom('email_outbox').select(['sent_at', 'last_error']).execute();
    expect(row!.sent_at).toBeNull();
    expect(row!.last_error).toMatch(/claim was lost/);
    await sink.close();
    await db.destroy();
  });

  it('keep a claim held while its work runs, and stop the work before the claim could lapse unrenewed', async () => {
    const db = await open();
    // The database as a worker sees it once it has gone away: nothing answers where it was.
    const gone = await openDatabase({ databaseUrl: `postgres://127.0.0.1:${await freePort()}/gone`, dataDir: '' });
    await deletionRequests(db).submit({ name: 'A', email: 'held@example.com', reason: 'r' });
    const leaseMs = 300;
    const [row] = await claimDue(db, 'email_outbox', { now: new Date(), leaseMs, limit: 1, holder: 'worker' });
    const claim = holdClaim(db, 'email_outbox', row!, { leaseMs, holder: 'worker' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Three leases later the claim still holds, renewed, and the work goes on.
    const [held] = await db.selectFrom('email_outbox').select('claimed_until').execute();
    expect(held!.claimed_until! > new Date().toISOString()).toBe(true);
    expect(claim.signal.aborted).toBe(false);
    claim.release();
    await db
      .updateTable('email_outbox')
      .set({ claimed_until: new Date(Date.now() + leaseMs).toISOString() })
      .execute();
    // The database away: no renewal can hold the claim, and the work is stopped before the claim lapses (a sixth of
    // the lease before, at most).
    const lost = holdClaim(gone, 'email_outbox', row!, { leaseMs, holder: 'worker' });
    const stopped = new Promise<number>((resolve) => lost.signal.addEventListener('abort', () => resolve(Date.now())));
    const stoppedAt = await stopped;
    const [lapsing] = await db.selectFrom('email_outbox').select('claimed_until').execute();
    expect(stoppedAt).toBeLessThan(Date.parse(lapsing!.claimed_until!));
    expect(String(lost.signal.reason)).toMatch(/could lapse/);
    await gone.destroy();
    await db.destroy();
  });

  it('count a lease from the time it was claimed with, not from when the claim’s queries answered', async () => {
    const db = await open();
    await deletionRequests(db).submit({ name: 'A', email: 'a@example.com', reason: 'r' });
    const leaseMs = 600;
    // Claimed with a time 500 ms past (the database slow to answer): 100 ms of the lease are left, not 600.
    const claimedAt = Date.now() - 500;
    await db
      .updateTable('email_outbox')
      .set({ next_attempt_at: new Date(claimedAt - 1_000).toISOString() })
      .execute();
    const rows = await claimDue(db, 'email_outbox', { now: new Date(claimedAt), leaseMs, limit: 20, holder: 'late' });
    expect(rows).toHaveLength(1);
    // Another worker takes it once the lease lapses, before the first's renewal: the first sends nothing.
    await db.updateTable('email_outbox').set({ claimed_by: 'other' }).execute();
    const yielded: number[] = [];
    for await (const row of whileClaimed(db, 'email_outbox', rows, { leaseMs, holder: 'late', claimedAt })) {
      yielded.push(row.id);
    }
    expect(yielded).toEqual([]);
    await db.destroy();
  });

  it('renew their claim while a slow batch runs, and send nothing another worker took meanwhile', async () => {
    const db = await open();
    for (const name of ['A', 'B', 'C']) {
      await deletionRequests(db).submit({ name, email: `${name}@example.com`, reason: 'r' });
    }
    const leaseMs = 600;
    const rows = await claimDue(db, 'email_outbox', { now: new Date(), leaseMs, limit: 20, holder: 'slow' });
    expect(rows).toHaveLength(3);
    const yielded: number[] = [];
    for await (const row of whileClaimed(db, 'email_outbox', rows, { leaseMs, holder: 'slow' })) {
      yielded.push(row.id);
      // A send that takes 400 ms: two of them outlast the first lease, which is renewed before the second.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const left = rows.slice(yielded.length - 1).map((one) => one.id);
      const held = await db.selectFrom('email_outbox').select('claimed_until').where('id', 'in', left).execute();
      expect(held.every((one) => one.claimed_until! > new Date().toISOString())).toBe(true);
      if (yielded.length === 2) {
        // Another worker takes the last row (as if the lease had lapsed): it is not sent here.
        await db.updateTable('email_outbox').set({ claimed_by: 'other' }).where('id', '=', rows[2]!.id).execute();
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
    expect(yielded).toEqual([rows[0]!.id, rows[1]!.id]);
    await db.destroy();
  });

  it('run the hourly purge on one instance at a time', async () => {
    const db = await open();
    const now = new Date();
    const takes = await Promise.all(
      Array.from({ length: 8 }, (_, index) => takeLease(db, 'hourly-purge', `instance-${index}`, now, 3_600_000)),
    );
    expect(takes.filter(Boolean)).toHaveLength(1);
    expect(await takeLease(db, 'hourly-purge', 'late', new Date(now.getTime() + 3_599_000), 3_600_000)).toBe(false);
    expect(await takeLease(db, 'hourly-purge', 'next', new Date(now.getTime() + 3_600_000), 3_600_000)).toBe(true);
    await db.destroy();
  });
});

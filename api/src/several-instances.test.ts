import { afterAll, describe, expect, it } from 'vitest';
import { claimDue, takeLease } from './db/claims.ts';
import { deletionRequests } from './deletion-requests/repository.ts';
import { deliverDueEmails, messageIdOf, type MailTransport } from './mail/outbox.ts';
import { postgresDatabase, postgresServer } from '../test/databases.ts';
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
    expect(await claimDue(db, 'email_outbox', { now, leaseMs: 60_000, limit: 20 })).toHaveLength(1);
    const sent: string[] = [];
    const transport: MailTransport = { describe: 'sink', send: async ({ messageId }) => void sent.push(messageId) };
    expect(await deliverDueEmails(db, transport, 'x@giftwell.example', new Date(now.getTime() + 59_000))).toEqual({
      due: 0,
      sent: 0,
    });
    expect(await deliverDueEmails(db, transport, 'x@giftwell.example', new Date(now.getTime() + 61_000))).toEqual({
      due: 1,
      sent: 1,
    });
    const row = await db.selectFrom('email_outbox').selectAll().executeTakeFirstOrThrow();
    expect(sent).toEqual([messageIdOf(row, 'Giftwell <no-reply@giftwell.example>')]);
    expect(sent[0]).toMatch(/^<outbox-\d+-\d+@giftwell\.example>$/);
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

import { afterAll, describe, expect, it } from 'vitest';
import type { DeletionEvent } from '@gift/contracts/webhooks';
import type { Db } from '../db/database.ts';
import { postgresDatabase, postgresServer, sqliteDatabase } from '../../test/databases.ts';
import { emailedToken } from '../../test/inbox.ts';
import { deletionRequests, TransitionError } from './repository.ts';

const postgres = await postgresServer();
if (!postgres && process.env.CI) throw new Error('CI must run the storage tests against PostgreSQL too');
afterAll(() => postgres?.stop());

const backends: [string, () => Promise<Db>][] = [['SQLite', async () => (await sqliteDatabase()).db]];
if (postgres) backends.push(['PostgreSQL', () => postgresDatabase(postgres.url)]);

const request = { name: 'Ann Lee', email: 'ann@example.com', reason: 'Not using it' };

/** Subjects of the emails queued for a request, oldest first. */
const subjects = async (db: Db, reference: string) =>
  (
    await db.selectFrom('email_outbox').select('subject').where('reference', '=', reference).orderBy('id').execute()
  ).map((row) => row.subject);

const emailText = async (db: Db, reference: string) =>
  (
    await db.selectFrom('email_outbox').select('body_text').where('reference', '=', reference).orderBy('id').execute()
  ).at(-1)!.body_text;

const events = async (db: Db) =>
  (await db.selectFrom('webhook_deliveries').select('payload').orderBy('id').execute()).map(
    (row) => JSON.parse(row.payload) as DeletionEvent,
  );

describe.each(backends)('outcomes of a deletion request on %s', (_name, open) => {
  let clock = new Date('2026-11-02T09:00:00.000Z');
  const now = () => clock;

  /** A request its owner has confirmed, on a fresh database. */
  async function confirmed(options: { webhooks?: boolean } = {}) {
    clock = new Date('2026-11-02T09:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now, ...options });
    const { reference } = await requests.submit(request);
    await requests.confirm(await emailedToken(db, reference));
    return { db, requests, reference };
  }

  it('tells the requester of a completion once: what was deleted, and what is kept and why', async () => {
    const { db, requests, reference } = await confirmed();
    await requests.transition(reference, 'in_progress', { actor: 'ops' });
    await requests.transition(reference, 'completed', { actor: 'ops' });
    await expect(requests.transition(reference, 'completed', { actor: 'ops' })).rejects.toThrow(TransitionError);
    expect(await subjects(db, reference)).toEqual([
      `Confirm your account deletion request (${reference})`,
      `Your account has been deleted (${reference})`,
    ]);
    const text = await emailText(db, reference);
    expect(text).toContain('your Giftwell account and its data have been deleted');
    expect(text).toMatch(/What we keep, and why: records of the orders .* Tax law requires/s);
    expect(text).toContain('up to 10 years');
    await db.destroy();
  });

  it('refuses a rejection without a reason, and emails the reason and the right to complain with one', async () => {
    const { db, requests, reference } = await confirmed();
    await expect(requests.transition(reference, 'rejected', { actor: 'ops', note: '  ' })).rejects.toThrow(
      /needs a reason/,
    );
    expect((await requests.get(reference))?.status).toBe('verified');
    await requests.transition(reference, 'rejected', { actor: 'ops', note: 'The account has an open order dispute.' });
    expect((await subjects(db, reference)).at(-1)).toBe(
      `We could not act on your account deletion request (${reference})`,
    );
    const text = await emailText(db, reference);
    expect(text).toContain('Why: The account has an open order dispute.');
    expect(text).toContain('complain to a data-protection supervisory authority');
    expect(text).toContain('seek a remedy before a court');
    await db.destroy();
  });

  it('extends the deadline in the first month, by two months at most, and emails the reason and the new date', async () => {
    const { db, requests, reference } = await confirmed();
    clock = new Date('2026-11-20T09:00:00.000Z');
    const { deadline } = await requests.extend(reference, 1, { reason: 'Orders still being delivered.', actor: 'ops' });
    expect(deadline.toISOString()).toBe('2027-01-02T09:00:00.000Z');
    expect((await requests.get(reference))?.deadline).toBe('2027-01-02T09:00:00.000Z');
    const text = await emailText(db, reference);
    expect(text).toContain('we need one more month');
    expect(text).toContain('Why: Orders still being delivered.');
    expect(text).toContain('by 2 January 2027 at the latest');
    await expect(requests.extend(reference, 2, { reason: 'More', actor: 'ops' })).rejects.toThrow(/already extended/);
    clock = new Date('2026-12-02T09:00:00.000Z');
    await expect(requests.extend(reference, 1, { reason: 'More', actor: 'ops' })).rejects.toThrow(/first month/);
    expect((await requests.get(reference))?.extendedMonths).toBe(1);
    expect(await subjects(db, reference)).toHaveLength(2);
    const audit = (await requests.get(reference))?.events.at(-1);
    expect(audit).toMatchObject({
      actor: 'ops',
      note: 'deadline extended by 1 month(s): Orders still being delivered.',
    });
    await db.destroy();
  });

  it('extends once when two operators extend at the same moment, with one email and one audit entry', async () => {
    const { db, requests, reference } = await confirmed();
    const results = await Promise.allSettled([
      requests.extend(reference, 2, { reason: 'A', actor: 'ops-1' }),
      requests.extend(reference, 2, { reason: 'B', actor: 'ops-2' }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(loser.reason).toBeInstanceOf(TransitionError);
    expect((await requests.get(reference))?.extendedMonths).toBe(2);
    expect(await subjects(db, reference)).toHaveLength(2);
    expect((await requests.get(reference))?.events.filter((event) => event.note?.startsWith('deadline'))).toHaveLength(
      1,
    );
    await db.destroy();
  });

  it('queues one signed-to-be event per change for the back end when webhooks are on, none when off', async () => {
    const off = await confirmed();
    await off.requests.transition(off.reference, 'completed', { actor: 'ops' });
    expect(await events(off.db)).toEqual([]);
    await off.db.destroy();

    const { db, requests, reference } = await confirmed({ webhooks: true });
    await requests.transition(reference, 'in_progress', { actor: 'ops' });
    await requests.extend(reference, 1, { reason: 'Busy', actor: 'ops' });
    // A move that is not allowed rolls back: no event.
    await expect(requests.transition(reference, 'verified', { actor: 'ops' })).rejects.toThrow(TransitionError);
    await requests.transition(reference, 'completed', { actor: 'ops' });
    const queued = await events(db);
    expect(queued.map((event) => [event.type, event.request.status, event.request.deadline])).toEqual([
      ['received', 'received', '2026-12-02T09:00:00.000Z'],
      ['verified', 'verified', '2026-12-02T09:00:00.000Z'],
      ['in_progress', 'in_progress', '2026-12-02T09:00:00.000Z'],
      ['extended', 'in_progress', '2027-01-02T09:00:00.000Z'],
      ['completed', 'completed', '2027-01-02T09:00:00.000Z'],
    ]);
    expect(new Set(queued.map((event) => event.id)).size).toBe(5);
    expect(queued[0]).toMatchObject({
      occurredAt: '2026-11-02T09:00:00.000Z',
      request: { reference, email: 'ann@example.com', name: 'Ann Lee' },
    });
    await db.destroy();
  });

  it('purges an unconfirmed request’s events with it', async () => {
    clock = new Date('2026-11-02T09:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now, webhooks: true });
    await requests.submit(request);
    clock = new Date('2026-11-12T09:00:00.000Z');
    expect(await requests.purgeUnverified(7)).toBe(1);
    expect(await events(db)).toEqual([]);
    await db.destroy();
  });
});

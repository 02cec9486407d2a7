import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { postgresDatabase, postgresServer, sqliteDatabase } from '../../test/databases.ts';
import { emailedToken } from '../../test/inbox.ts';
import { deletionRequests, newReference, TransitionError } from './repository.ts';

const postgres = await postgresServer();
if (!postgres && process.env.CI) throw new Error('CI must run the storage tests against PostgreSQL too');
afterAll(() => postgres?.stop());

const backends: [string, () => Promise<Db>][] = [['SQLite', async () => (await sqliteDatabase()).db]];
if (postgres) backends.push(['PostgreSQL', () => postgresDatabase(postgres.url)]);

describe.each(backends)('deletion request storage on %s', (_name, open) => {
  const request = { name: 'Ann Lee', email: 'ann@example.com', reason: 'Not using it' };

  it('stores a request with its reference, status, time and first audit entry', async () => {
    const db = await open();
    const requests = deletionRequests(db, { now: () => new Date('2026-11-22T10:00:00.000Z') });
    const { reference, created } = await requests.submit(request);
    expect(created).toBe(true);
    expect(reference).toMatch(/^DEL-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const stored = await requests.get(reference);
    expect(stored).toMatchObject({ ...request, status: 'received', receivedAt: '2026-11-22T10:00:00.000Z' });
    expect(stored?.events).toEqual([
      { fromStatus: null, toStatus: 'received', note: null, actor: 'web form', at: '2026-11-22T10:00:00.000Z' },
    ]);
    await db.destroy();
  });

  it('keeps one open request per email, even when twenty arrive at once', async () => {
    const db = await open();
    const requests = deletionRequests(db);
    const results = await Promise.all(Array.from({ length: 20 }, () => requests.submit(request)));
    expect(new Set(results.map((result) => result.reference)).size).toBe(1);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(await requests.list({ openOnly: false })).toHaveLength(1);
    await db.destroy();
  });

  it('moves a confirmed request through in progress to completed, audits each move, then accepts a new one', async () => {
    const db = await open();
    const requests = deletionRequests(db);
    const { reference } = await requests.submit(request);
    await expect(requests.transition(reference, 'in_progress', { actor: 'ops' })).rejects.toThrow(TransitionError);
    expect((await requests.confirm(await emailedToken(db, reference))).outcome).toBe('valid');
    await requests.transition(reference, 'in_progress', { actor: 'ops' });
    await requests.transition(reference, 'completed', { actor: 'ops', note: 'deleted in backend' });
    const stored = await requests.get(reference);
    expect(stored?.status).toBe('completed');
    expect(stored?.events.map((event) => [event.fromStatus, event.toStatus, event.actor, event.note])).toEqual([
      [null, 'received', 'web form', null],
      ['received', 'verified', 'email owner', 'confirmed from the emailed link'],
      ['verified', 'in_progress', 'ops', null],
      ['in_progress', 'completed', 'ops', 'deleted in backend'],
    ]);
    expect(await requests.list({ openOnly: true })).toEqual([]);
    const again = await requests.submit(request);
    expect(again.created).toBe(true);
    expect(again.reference).not.toBe(reference);
    await db.destroy();
  });

  it('refuses moves that are not allowed and leaves the request as it was', async () => {
    const db = await open();
    const requests = deletionRequests(db);
    const { reference } = await requests.submit(request);
    await requests.transition(reference, 'rejected', { actor: 'ops', note: 'not the owner' });
    await expect(requests.transition(reference, 'in_progress', { actor: 'ops' })).rejects.toThrow(TransitionError);
    await expect(requests.transition('DEL-NONE-NONE', 'completed', { actor: 'ops' })).rejects.toThrow(TransitionError);
    expect((await requests.get(reference))?.status).toBe('rejected');
    await db.destroy();
  });
});

describe.each(backends)('confirmation by the owner of the address on %s', (_name, open) => {
  const request = { name: 'Ann Lee', email: 'ann@example.com', reason: 'Not using it' };
  let clock = new Date('2026-11-22T10:00:00.000Z');
  const now = () => clock;

  it('queues one email with a link whose token is stored only as a hash', async () => {
    const db = await open();
    const { reference } = await deletionRequests(db, { now, siteUrl: 'https://gifts.example' }).submit(request);
    const emails = await db.selectFrom('email_outbox').selectAll().execute();
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ to_address: 'ann@example.com', reference, sent_at: null });
    expect(emails[0]!.subject).toContain(reference);
    expect(emails[0]!.body_text).toContain('https://gifts.example/delete-account/confirm#token=');
    expect(emails[0]!.body_text).toContain('If you did not ask for this');
    const token = await emailedToken(db, reference);
    const stored = await db.selectFrom('confirmation_tokens').selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);
    await db.destroy();
  });

  it('verifies on confirm, once; a lookup changes nothing; unknown and expired tokens are refused', async () => {
    clock = new Date('2026-11-22T10:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now, confirmationTtlHours: 24 });
    const first = await requests.submit(request);
    const token = await emailedToken(db, first.reference);
    expect(await requests.lookup(token)).toMatchObject({ outcome: 'valid', reference: first.reference });
    expect((await requests.get(first.reference))?.status).toBe('received');
    expect(await requests.lookup('A'.repeat(43))).toEqual({ outcome: 'unknown' });

    expect((await requests.confirm(token)).outcome).toBe('valid');
    expect(await requests.get(first.reference)).toMatchObject({ status: 'verified', verifiedAt: clock.toISOString() });
    expect(await requests.confirm(token)).toEqual({ outcome: 'used' });

    const other = await requests.submit({ ...request, email: 'bob@example.com' });
    const late = await emailedToken(db, other.reference);
    clock = new Date(clock.getTime() + 24 * 3_600_000 + 1);
    expect(await requests.confirm(late)).toEqual({ outcome: 'expired' });
    expect((await requests.get(other.reference))?.status).toBe('received');
    await db.destroy();
  });

  it('sends another link for an unconfirmed request only after 15 minutes, and at most 3 a day', async () => {
    clock = new Date('2026-11-22T10:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now });
    const { reference } = await requests.submit(request);
    const count = async () => (await db.selectFrom('email_outbox').select('id').execute()).length;
    await requests.submit(request);
    expect(await count()).toBe(1);
    for (let i = 0; i < 4; i++) {
      clock = new Date(clock.getTime() + 16 * 60_000);
      expect((await requests.submit(request)).reference).toBe(reference);
    }
    expect(await count()).toBe(3);
    await db.destroy();
  });

  it('sends one mail to one mailbox however many of its sub-addresses ask, and the next after its wait', async () => {
    clock = new Date('2026-11-22T10:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now });
    const mailsTo = async () =>
      (await db.selectFrom('email_outbox').select('to_address').execute()).map((row) => row.to_address);
    const addresses = ['v+1@example.com', 'v+2@example.com', 'V+3@Example.com', 'v@example.com', 'v+4@example.com'];
    const results = [];
    for (const email of addresses) results.push(await requests.submit({ ...request, email: email.toLowerCase() }));
    expect(results.map((result) => result.created)).toEqual([true, true, true, true, true]);
    expect(results.filter((result) => result.emailed)).toHaveLength(1);
    expect(await mailsTo()).toEqual(['v+1@example.com']);
    // At Gmail, dots do not count either; another mailbox is not held back.
    await requests.submit({ ...request, email: 'a.n.n@gmail.com' });
    await requests.submit({ ...request, email: 'ann+x@googlemail.com' });
    await requests.submit({ ...request, email: 'w@example.com' });
    expect(await mailsTo()).toEqual(['v+1@example.com', 'a.n.n@gmail.com', 'w@example.com']);
    clock = new Date(clock.getTime() + 16 * 60_000);
    expect((await requests.submit({ ...request, email: 'v+2@example.com' })).emailed).toBe(true);
    expect(await mailsTo()).toContain('v+2@example.com');
    await db.destroy();
  });

  it('sends one mail when sub-addresses of one mailbox ask at the same moment', async () => {
    const db = await open();
    const requests = deletionRequests(db);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => requests.submit({ ...request, email: `z+${index}@example.com` })),
    );
    expect(results.filter((result) => result.created)).toHaveLength(10);
    expect(results.filter((result) => result.emailed)).toHaveLength(1);
    expect(await db.selectFrom('email_outbox').select('id').execute()).toHaveLength(1);
    await db.destroy();
  });

  it('queues one more link, not several, when twenty repeats arrive at once after the last one aged', async () => {
    clock = new Date('2026-11-22T10:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now });
    await requests.submit(request);
    clock = new Date(clock.getTime() + 20 * 60_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => requests.submit(request)));
    expect(results.filter((result) => result.emailed)).toHaveLength(1);
    expect(await db.selectFrom('email_outbox').select('id').execute()).toHaveLength(2);
    expect(await db.selectFrom('confirmation_tokens').select('token_hash').execute()).toHaveLength(2);
    await db.destroy();
  });

  it('puts nothing the requester typed into the email to the unproven address', async () => {
    clock = new Date('2026-11-22T10:00:00.000Z');
    const db = await open();
    const lure = 'Your account is locked.\nRestore it at https://evil.example/restore';
    await deletionRequests(db, { now }).submit({ ...request, name: lure, reason: `Also: ${lure}` });
    const [email] = await db.selectFrom('email_outbox').selectAll().execute();
    expect(`${email!.subject}\n${email!.body_text}`).not.toMatch(/locked|evil\.example|Ann/);
    expect(email!.body_text).toMatch(/^Hello,\n/);
    await db.destroy();
  });

  it('never turns a rejected request back into verified when a confirmation races the rejection', async () => {
    clock = new Date('2026-11-22T10:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now });
    const { reference } = await requests.submit(request);
    const token = await emailedToken(db, reference);
    const [, rejected] = await Promise.allSettled([
      requests.confirm(token),
      requests.transition(reference, 'rejected', { actor: 'ops', note: 'fraud' }),
    ]);
    const stored = await requests.get(reference);
    // Whichever came first, the trail is one chain of moves that ends where the request is: a rejection that
    // succeeded is final, and one that lost the race says so instead of writing over the confirmation.
    const events = stored!.events;
    events.slice(1).forEach((event, i) => expect(event.fromStatus).toBe(events[i]!.toStatus));
    expect(events.at(-1)?.toStatus).toBe(stored!.status);
    if (rejected.status === 'fulfilled') expect(stored!.status).toBe('rejected');
    else expect(rejected.reason).toBeInstanceOf(TransitionError);
    await db.destroy();
  });

  it('moves a request once when two operators move it at the same moment, and audits one move', async () => {
    clock = new Date('2026-11-22T10:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now });
    const { reference } = await requests.submit(request);
    await requests.confirm(await emailedToken(db, reference));
    const moves = await Promise.allSettled([
      requests.transition(reference, 'completed', { actor: 'ops-1' }),
      requests.transition(reference, 'completed', { actor: 'ops-2' }),
    ]);
    expect(moves.filter((move) => move.status === 'fulfilled')).toHaveLength(1);
    const events = (await requests.get(reference))?.events ?? [];
    expect(events.filter((event) => event.toStatus === 'completed')).toHaveLength(1);
    await db.destroy();
  });

  it('purges unconfirmed requests after the set days, keeping nothing about them, and keeps confirmed ones', async () => {
    clock = new Date('2026-11-01T10:00:00.000Z');
    const db = await open();
    const requests = deletionRequests(db, { now });
    const stale = await requests.submit(request);
    const kept = await requests.submit({ ...request, email: 'bob@example.com' });
    await requests.confirm(await emailedToken(db, kept.reference));
    clock = new Date('2026-11-09T10:00:00.000Z');
    expect(await requests.purgeUnverified(7)).toBe(1);
    expect(await requests.get(stale.reference)).toBeUndefined();
    const leftovers = JSON.stringify([
      await db.selectFrom('deletion_request_events').selectAll().execute(),
      await db.selectFrom('email_outbox').selectAll().execute(),
      await db.selectFrom('confirmation_tokens').selectAll().execute(),
    ]);
    expect(leftovers).not.toContain(stale.reference);
    expect(leftovers).not.toContain('ann@example.com');
    expect((await requests.get(kept.reference))?.status).toBe('verified');
    await db.destroy();
  });
});

describe('newReference', () => {
  it('makes readable, distinct references', () => {
    const references = new Set(Array.from({ length: 2000 }, newReference));
    expect(references.size).toBe(2000);
    for (const reference of references) expect(reference).toMatch(/^DEL-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
  });
});

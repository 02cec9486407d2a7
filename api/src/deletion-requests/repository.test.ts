import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { postgresDatabase, postgresServer, sqliteDatabase } from '../../test/databases.ts';
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
    const requests = deletionRequests(db, () => new Date('2026-11-22T10:00:00.000Z'));
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

  it('moves a request through in progress to completed, audits each move, and then accepts a new one', async () => {
    const db = await open();
    const requests = deletionRequests(db);
    const { reference } = await requests.submit(request);
    await requests.transition(reference, 'in_progress', { actor: 'ops' });
    await requests.transition(reference, 'completed', { actor: 'ops', note: 'deleted in backend' });
    const stored = await requests.get(reference);
    expect(stored?.status).toBe('completed');
    expect(stored?.events.map((event) => [event.fromStatus, event.toStatus, event.actor, event.note])).toEqual([
      [null, 'received', 'web form', null],
      ['received', 'in_progress', 'ops', null],
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

describe('newReference', () => {
  it('makes readable, distinct references', () => {
    const references = new Set(Array.from({ length: 2000 }, newReference));
    expect(references.size).toBe(2000);
    for (const reference of references) expect(reference).toMatch(/^DEL-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
  });
});

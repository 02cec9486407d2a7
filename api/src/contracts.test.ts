import type { AddressInfo } from 'node:net';
import { deletionApi, locationApi } from '@gift/contracts/clients';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from './db/database.ts';
import { sqliteDatabase } from '../test/databases.ts';
import { referenceOf, testApi } from '../test/app.ts';
import { emailedToken } from '../test/inbox.ts';

/** The browser's typed clients against the API on a real port: both sides of the contract in one test. */
let db: Db;
let close: () => Promise<void>;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  db = (await sqliteDatabase()).db;
  const { app } = await testApi(db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // The clients post to the site's own origin, as a page does.
  vi.stubGlobal('fetch', (path: string, init?: RequestInit) => realFetch(`${base}${path}`, init));
  close = () => app.close();
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await close();
  await db.destroy();
});

describe('the browser’s clients and the API agree', () => {
  it('on a deletion request, its confirmation link, and each problem a link can have', async () => {
    expect(await deletionApi.request({ name: 'Ann', email: 'ann@example.com', reason: 'Moving on.' })).toEqual({
      ok: true,
    });
    expect(await deletionApi.request({ name: 'Ann', email: 'not an address', reason: 'x' })).toEqual({
      ok: false,
      status: 400,
    });
    const reference = await referenceOf(db, 'ann@example.com');
    const token = await emailedToken(db, reference);
    expect(await deletionApi.lookUp('A'.repeat(43))).toEqual({ ok: false, problem: 'unknown' });
    expect(await deletionApi.lookUp(token)).toMatchObject({
      ok: true,
      details: { reference, email: 'a***@example.com', status: 'received' },
    });
    expect(await deletionApi.confirm(token)).toMatchObject({ ok: true, details: { reference, status: 'verified' } });
    expect(await deletionApi.confirm(token)).toEqual({ ok: false, problem: 'used' });
  });

  it('on sharing a location', async () => {
    const token = 'gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7';
    expect(await locationApi.share({ token, position: { latitude: 52.37, longitude: 4.89, accuracy: 10 } })).toEqual({
      ok: true,
    });
    expect(await locationApi.share({ token, address: 'x' })).toEqual({ ok: false, status: 400 });
  });
});

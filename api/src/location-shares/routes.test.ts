import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { apiForEachTest, testApi, outcomeIn, postTo } from '../../test/app.ts';
import { locationShares } from './repository.ts';

const token = 'gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7';
const position = { latitude: 52.3702, longitude: 4.8952, accuracy: 12.5 };
let db: Db;
let app: FastifyInstance;

const post = (payload: unknown, contentType = 'application/json') =>
  postTo(app, '/api/share-location', payload, { 'content-type': contentType });

apiForEachTest((api) => ({ db, app } = api));

describe('POST /api/share-location', () => {
  it('stores a position for the link’s token with the time, and answers 202', async () => {
    const response = await post({ token, position });
    expect(response.statusCode).toBe(202);
    expect(await locationShares(db).get(token)).toMatchObject({
      latitude: 52.3702,
      longitude: 4.8952,
      accuracy_m: 12.5,
      address: null,
      shared_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('replaces an earlier share for the same token, position or address', async () => {
    await post({ token, position });
    expect((await post({ token, address: '  12 Canal Street, Amsterdam ' })).statusCode).toBe(202);
    expect(await locationShares(db).get(token)).toMatchObject({
      latitude: null,
      address: '12 Canal Street, Amsterdam',
    });
    const rows = await db.selectFrom('location_shares').selectAll().execute();
    expect(rows).toHaveLength(1);
  });

  it.each([
    ['no token', { position }, 'token'],
    ['a malformed token', { token: 'short', position }, 'token'],
    [
      'a token shorter than the site’s own links',
      { token: 'AbC_1234567890123456789012345678901234567', position },
      'token',
    ],
    ['a token with a path in it', { token: '../../etc/passwd-aaaaaaaa', position }, 'token'],
    ['neither position nor address', { token }, 'position'],
    ['both position and address', { token, position, address: '12 Canal Street' }, 'address'],
    ['a latitude out of range', { token, position: { ...position, latitude: 91 } }, 'position/latitude'],
    ['a longitude given as text', { token, position: { ...position, longitude: '4.89' } }, 'position/longitude'],
    ['a negative accuracy', { token, position: { ...position, accuracy: -1 } }, 'position/accuracy'],
    ['a too-short address', { token, address: 'x' }, 'address'],
    ['an unknown field', { token, position, admin: 1 }, 'admin'],
  ])('refuses %s with a 400 naming the field and stores nothing', async (_case, body, field) => {
    const response = await post(body);
    expect(response.statusCode).toBe(400);
    expect(response.json().field).toBe(field);
    expect(await db.selectFrom('location_shares').selectAll().execute()).toEqual([]);
  });

  it('accepts JSON, and the page’s address form posted natively, and no other encoding', async () => {
    expect((await post(`token=${token}`, 'text/plain')).statusCode).toBe(415);
    expect((await post('{"token":', 'application/json')).statusCode).toBe(400);
    const form = await post(`token=${token}&address=12+Canal+Street%2C+Amsterdam`, 'application/x-www-form-urlencoded');
    expect(form.statusCode).toBe(303);
    expect(form.headers.location).toBe(`/share-location/${token}`);
    const stored = await db.selectFrom('location_shares').selectAll().execute();
    expect(stored).toEqual([expect.objectContaining({ token, address: '12 Canal Street, Amsterdam' })]);
  });

  it('gives a natively posted address back on its page when it is too short, and stores nothing', async () => {
    const form = await post(`token=${token}&address=12`, 'application/x-www-form-urlencoded');
    expect(form.statusCode).toBe(303);
    expect(outcomeIn(form, `/share-location/${token}`)).toEqual({
      form: 'share-location',
      outcome: 'refused',
      message: 'Enter the full delivery address.',
      address: '12',
    });
    expect(await db.selectFrom('location_shares').selectAll().execute()).toEqual([]);
  });

  it('limits how often one link can be shared', async () => {
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await post({ token, position })).statusCode);
    expect(statuses.slice(0, 10).every((status) => status === 202)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it('caps how many new links one client may start in a day, while known links still update', async () => {
    const capped = await testApi(db, { locationNewTokensPerDay: 3 });
    const share = (link: string, remoteAddress = '203.0.113.9') =>
      capped.app.inject({
        method: 'POST',
        url: '/api/share-location',
        remoteAddress,
        headers: { 'content-type': 'application/json' },
        payload: { token: link, position },
      });
    const links = Array.from({ length: 4 }, (_, i) => `made-up-token-${i}-${'x'.repeat(40)}`);
    const statuses = [];
    for (const link of links) statuses.push((await share(link)).statusCode);
    expect(statuses).toEqual([202, 202, 202, 429]);
    expect((await share(links[0]!)).statusCode).toBe(202);
    expect((await share(links[3]!, '198.51.100.4')).statusCode).toBe(202);
    expect(await db.selectFrom('location_shares').select('token').execute()).toHaveLength(4);
    await capped.app.close();
  });
});

describe('retention of shared locations', () => {
  it('deletes a location not updated for the retention days, and keeps a recent one', async () => {
    let clock = new Date('2026-11-01T10:00:00.000Z');
    const shares = locationShares(db, () => clock);
    await shares.share('old-link-aaaaaaaaaaaa', { kind: 'position', ...position });
    clock = new Date('2026-11-03T10:00:00.000Z');
    await shares.share('new-link-aaaaaaaaaaaa', { kind: 'address', address: '12 Canal Street' });
    clock = new Date('2026-11-04T11:00:00.000Z');
    expect(await shares.purgeOlderThan(3)).toBe(1);
    expect(await shares.get('old-link-aaaaaaaaaaaa')).toBeUndefined();
    expect(await shares.get('new-link-aaaaaaaaaaaa')).toBeDefined();
  });
});

import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { apiForEachTest, testApi, countRows, postTo } from '../../test/app.ts';

let db: Db;
let app: FastifyInstance;

const report = {
  route: '/vendor',
  remote: 'vendor',
  version: '20261125.090000000-1a2b3c4d',
  shell: 'Bx12_abc',
  viewport: 'phone',
  view: true,
  entries: [
    { metric: 'LCP', value: 1830.2 },
    { metric: 'CLS', value: 0.02 },
    { error: 'TypeError: x is undefined', frame: 'https://gifts.example/remotes/vendor/a.js:1:200', count: 2 },
  ],
};

const send = (payload: unknown, headers: Record<string, string> = {}) => postTo(app, '/api/rum', payload, headers);

const stored = async () =>
  (await db.selectFrom('field_views').selectAll().execute()).length +
  (await db.selectFrom('field_errors').selectAll().execute()).length;

apiForEachTest((api) => ({ db, app } = api));

describe('POST /api/rum', () => {
  it('stores a view, its metrics and its errors, tagged, and answers 204', async () => {
    const response = await send(report);
    expect(response.statusCode).toBe(204);
    const views = await db.selectFrom('field_views').selectAll().execute();
    expect(views).toEqual([
      {
        id: 1,
        received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        route: '/vendor',
        remote: 'vendor',
        version: report.version,
        shell: 'Bx12_abc',
        viewport: 'phone',
        counted: 1,
        lcp: expect.closeTo(1830.2, 1),
        cls: expect.closeTo(0.02, 5),
        inp: null,
        fcp: null,
        ttfb: null,
      },
    ]);
    const errors = await db.selectFrom('field_errors').selectAll().execute();
    // Nothing that identifies the visitor: no address, no cookie, no user agent; only the view's tags.
    expect(errors).toEqual([
      {
        id: 1,
        received_at: views[0]!.received_at,
        route: '/vendor',
        remote: 'vendor',
        version: report.version,
        message: 'TypeError: x is undefined',
        frame: 'https://gifts.example/remotes/vendor/a.js:1:200',
        count: 2,
      },
    ]);
  });

  it.each([
    ['an unknown metric', { ...report, entries: [{ metric: 'FID', value: 3 }] }],
    ['a value given as text', { ...report, entries: [{ metric: 'LCP', value: '1830' }] }],
    ['a negative value', { ...report, entries: [{ metric: 'LCP', value: -1 }] }],
    ['51 entries', { ...report, entries: Array.from({ length: 51 }, () => ({ metric: 'INP', value: 40 })) }],
    [
      'a route that is a link with its token',
      { ...report, route: '/share-location/gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5' },
    ],
    ['an unknown field', { ...report, visitor: 'abc' }],
    ['a viewport class it does not know', { ...report, viewport: 'tablet' }],
    ['an error with a control character', { ...report, entries: [{ error: 'a\u001b[2Jb', count: 1 }] }],
    ['no entries list', { ...report, entries: undefined }],
    ['malformed JSON', '{"route":'],
  ])('refuses %s with a 400 and stores nothing', async (_name, payload) => {
    const response = await send(payload);
    expect(response.statusCode).toBe(400);
    expect(await stored()).toBe(0);
  });

  it('refuses a body over 16 KiB with a 413, another site with a 403, and text with a 415, storing nothing', async () => {
    const entry = { error: 'x'.repeat(300), frame: 'y'.repeat(300), count: 1 };
    const big = { ...report, entries: Array.from({ length: 50 }, () => entry) };
    expect(JSON.stringify(big).length).toBeGreaterThan(16 * 1024);
    expect((await send(big)).statusCode).toBe(413);
    expect((await send(report, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await send(JSON.stringify(report), { 'content-type': 'text/plain' })).statusCode).toBe(415);
    expect(await stored()).toBe(0);
  });

  it('limits one address to its own bucket of beacons, apart from the forms', async () => {
    const beacon = (app: FastifyInstance) =>
      app.inject({
        method: 'POST',
        url: '/api/rum',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(report),
      });
    // The forms' bucket used up does not stop beacons...
    const { app: formsLimited } = await testApi(db, { perIpPoints: 2, fieldDataPerIp: 100 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await beacon(formsLimited)).statusCode);
    expect(statuses).toEqual([204, 204, 204, 204]);
    await formsLimited.close();
    // ...and beacons over their own limit get a 429 and are not stored.
    const { app: beaconsLimited } = await testApi(db, { fieldDataPerIp: 2 });
    const limited = [];
    for (let i = 0; i < 3; i++) limited.push((await beacon(beaconsLimited)).statusCode);
    expect(limited).toEqual([204, 204, 429]);
    await beaconsLimited.close();
    expect(await countRows(db)).toBe(0);
    expect(await db.selectFrom('field_views').where('counted', '=', 1).selectAll().execute()).toHaveLength(6);
  });
});

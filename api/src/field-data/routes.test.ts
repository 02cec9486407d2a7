import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { ApiConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { samplingWeight } from './intake.ts';
import { viewTickets } from './tickets.ts';
import { apiForEachTest, testApi, countRows, postTo } from '../../test/app.ts';

let db: Db;
let app: FastifyInstance;
let config: ApiConfig;

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

apiForEachTest((api) => ({ db, app, config } = api));

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
        // The client's network as a keyed hash, never its address; no ticket came with this report.
        network: expect.stringMatching(/^[\w-]{8}$/),
        // And with the keys of the two days before (one network across midnight in a window of up to 48 hours).
        network_1: expect.stringMatching(/^[\w-]{8}$/),
        network_2: expect.stringMatching(/^[\w-]{8}$/),
        ticket: null,
        goal: null,
        errors: 2,
        weight: 1,
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
        weight: 1,
      },
    ]);
    expect(JSON.stringify(views)).not.toContain('127.0.0');
  });

  it('refuses, with a 400 and nothing stored, a report for a remote that does not own its route, or for a version the site does not know', async () => {
    const { app: site } = await testApi(db, {
      knownVersion: (remote, version) => remote === 'vendor' && version === report.version,
    });
    const sendTo = (payload: unknown) => postTo(site, '/api/rum', payload);
    expect((await sendTo({ ...report, remote: 'legal' })).json()).toMatchObject({ field: 'remote' });
    expect((await sendTo({ ...report, remote: 'nosuch' })).statusCode).toBe(400);
    expect((await sendTo({ ...report, version: 'x'.repeat(100) })).json()).toMatchObject({ field: 'version' });
    expect((await sendTo({ ...report, route: '/privacy' })).statusCode).toBe(400);
    expect(await stored()).toBe(0);
    expect((await sendTo(report)).statusCode).toBe(204);
    // The not-found page is the shell's, whatever version a report claims for it.
    expect((await sendTo({ ...report, route: '/404', remote: 'shell', version: 'anything' })).statusCode).toBe(204);
    const versions = await db.selectFrom('field_views').select(['remote', 'version']).orderBy('id').execute();
    expect(versions).toEqual([
      { remote: 'vendor', version: report.version },
      { remote: 'shell', version: 'shell' },
    ]);
    await site.close();
  });

  it("takes a goal of the report's page, and refuses any other", async () => {
    const goal = { ...report, view: false, entries: [], goal: 'portal-click' };
    expect((await send(goal)).statusCode).toBe(204);
    const other = await send({ ...goal, goal: 'store-click' });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({
      field: 'goal',
      message: 'goal must be a goal of /vendor: portal-click',
    });
    expect((await send({ ...goal, route: '/privacy', remote: 'legal' })).statusCode).toBe(400);
    expect((await send({ ...goal, goal: 'made-up' })).statusCode).toBe(400);
    // Without a ticket nobody vouched for the view it names: answered, and nothing kept (it counts nothing).
    expect(await db.selectFrom('field_views').select('goal').execute()).toEqual([]);
    expect(await db.selectFrom('field_goals').select('goal').execute()).toEqual([]);
    // With one, the goal of that view, once however often it is said.
    const ticket = viewTickets(config.cookieSecrets).issue({
      remote: 'vendor',
      version: report.version,
      route: '/vendor',
    });
    for (let i = 0; i < 3; i++) expect((await send({ ...goal, ticket: ticket.value })).statusCode).toBe(204);
    expect(await db.selectFrom('field_goals').select('goal').execute()).toEqual([{ goal: 'portal-click' }]);
  });

  it("counts a link's ping as its page's goal, for the view its ticket vouches for, and nothing else", async () => {
    const tickets = viewTickets(config.cookieSecrets);
    const ticket = tickets.issue({ remote: 'vendor', version: report.version, route: '/vendor' });
    const ping = (goal: string, headers: Record<string, string>) =>
      postTo(app, `/api/rum/goal/${goal}`, 'PING', {
        'content-type': 'text/ping',
        'ping-from': 'http://127.0.0.1/vendor',
        'ping-to': 'https://vendors.example/register',
        cookie: `${ticket.name}=${ticket.value}`,
        ...headers,
      });
    // Clicked again and again (or pinged by anyone holding the ticket): one goal of one view.
    for (let i = 0; i < 20; i++) expect((await ping('portal-click', {})).statusCode).toBe(204);
    // Not this page's goal, or no page of the site: refused; no ticket, or a browser that asks not to be followed:
    // answered and not stored.
    expect((await ping('store-click', {})).statusCode).toBe(400);
    expect((await ping('portal-click', { 'ping-from': 'http://127.0.0.1/nowhere' })).statusCode).toBe(400);
    expect((await ping('portal-click', { cookie: '' })).statusCode).toBe(204);
    expect((await ping('portal-click', { dnt: '1' })).statusCode).toBe(204);
    expect((await ping('portal-click', { 'sec-gpc': '1' })).statusCode).toBe(204);
    // A ticket of another page is not this page's view.
    const other = tickets.issue({ remote: 'vendor', version: report.version, route: '/privacy' });
    expect((await ping('portal-click', { cookie: `${other.name}=${other.value}` })).statusCode).toBe(204);
    // From another site: refused before anything is read.
    expect((await ping('portal-click', { origin: 'https://elsewhere.example' })).statusCode).toBe(403);
    expect(await db.selectFrom('field_views').select('id').execute()).toEqual([]);
    const rows = await db.selectFrom('field_goals').select(['remote', 'version', 'goal', 'ticket']).execute();
    expect(rows).toEqual([
      {
        remote: 'vendor',
        version: report.version,
        goal: 'portal-click',
        ticket: tickets.read(ticket.value, { ...report, route: '/vendor' }),
      },
    ]);
  });

  it('stores the nonce of a valid view ticket for the same remote and version, and nothing for any other', async () => {
    const tickets = viewTickets(config.cookieSecrets);
    const cookieOf = (fields: { remote: string; version: string }, now?: number) => {
      const { name, value } = tickets.issue({ ...fields, route: '/vendor' }, { now });
      return { cookie: `${name}=${value}`, value };
    };
    const valid = cookieOf(report);
    await send(report, { cookie: valid.cookie });
    await send(report, { cookie: cookieOf({ remote: 'vendor', version: 'another' }).cookie });
    await send(report, { cookie: `rum_vendor=${cookieOf({ remote: 'legal', version: report.version }).value}` });
    await send(report, { cookie: cookieOf(report, Date.now() - 2 * 3_600_000).cookie });
    const forged = viewTickets(['another-secret-of-at-least-32-characters-long']).issue({ ...report });
    await send(report, { cookie: `${forged.name}=${forged.value}` });
    const rows = await db.selectFrom('field_views').select('ticket').orderBy('id').execute();
    expect(rows.map((row) => row.ticket)).toEqual([tickets.read(valid.value, report), null, null, null, null]);
    expect(rows[0]!.ticket).toMatch(/^[\w-]{8}$/);
  });

  it('keeps 20 distinct error messages of a version an hour by name and counts the rest as one', async () => {
    const errors = Array.from({ length: 45 }, (_, index) => ({ error: `Error number ${index}`, count: 1 }));
    expect((await send({ ...report, entries: errors })).statusCode).toBe(204);
    expect((await send({ ...report, entries: [{ error: 'Yet another', count: 3 }] })).statusCode).toBe(204);
    const rows = await db.selectFrom('field_errors').select(['message', 'count']).orderBy('id').execute();
    expect(rows).toHaveLength(22);
    expect(rows.slice(20)).toEqual([
      { message: 'other errors', count: 25 },
      { message: 'other errors', count: 3 },
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

  it('samples past the storage budget: each kept report stands for the ones left out, and nothing is stored past the sample', async () => {
    const mb = 1024 * 1024;
    expect(samplingWeight(999 * mb, 1024 * mb)).toBe(1);
    expect(samplingWeight(1024 * mb, 1024 * mb)).toBe(10);
    expect(samplingWeight(1076 * mb, 1024 * mb)).toBe(20);
    expect(samplingWeight(100_000 * mb, 1024 * mb)).toBe(10_240);
    // A budget of one byte, over at once: of 40 reports, few are kept, each weighing 10,240.
    const { app: full } = await testApi(db, { fieldDataMaxBytes: 1 });
    for (let i = 0; i < 40; i++) expect((await postTo(full, '/api/rum', report)).statusCode).toBe(204);
    const kept = await db.selectFrom('field_views').select('weight').execute();
    expect(kept.length).toBeLessThan(3);
    for (const row of kept) expect(row.weight).toBe(10_240);
    await full.close();
  });

  it('keeps every ticketed view while junk past half the budget is sampled away', async () => {
    // Junk first: the largest beacons without a ticket, until they take more than half of a small budget.
    const junk = {
      ...report,
      entries: Array.from({ length: 24 }, (_, i) => ({ error: `${i}`.padEnd(300, 'x'), count: 1 })),
    };
    const { app: filling } = await testApi(db);
    for (let i = 0; i < 60; i++) expect((await postTo(filling, '/api/rum', junk)).statusCode).toBe(204);
    await filling.close();
    const { fieldData } = await import('./repository.ts');
    const used = await fieldData(db).rawBytes();
    const { app: budgeted } = await testApi(db, { fieldDataMaxBytes: Math.round(used / 0.6) });
    // More junk is now sampled (one in 20 or fewer kept); 40 ticketed views are all stored, each weighing 1.
    const before = await countRows(db);
    for (let i = 0; i < 40; i++) expect((await postTo(budgeted, '/api/rum', junk)).statusCode).toBe(204);
    const tickets = viewTickets(config.cookieSecrets);
    for (let i = 0; i < 40; i++) {
      const { name, value } = tickets.issue({ ...report, route: '/vendor' });
      expect((await postTo(budgeted, '/api/rum', report, { cookie: `${name}=${value}` })).statusCode).toBe(204);
    }
    const ticketed = await db.selectFrom('field_views').select('weight').where('ticket', 'is not', null).execute();
    expect(ticketed).toEqual(Array.from({ length: 40 }, () => ({ weight: 1 })));
    expect(await countRows(db)).toBeLessThan(before + 40 + 40 * 4);
    await budgeted.close();
  });

  it('stores at most 2,000 unticketed reports of one version an hour, and goes on storing ticketed ones', async () => {
    for (let i = 0; i < 2_005; i++) expect((await send({ ...report, entries: [] })).statusCode).toBe(204);
    expect(await db.selectFrom('field_views').select('id').execute()).toHaveLength(2_000);
    const { name, value } = viewTickets(config.cookieSecrets).issue({ ...report, route: '/vendor' });
    expect((await send(report, { cookie: `${name}=${value}` })).statusCode).toBe(204);
    expect(await db.selectFrom('field_views').select('id').execute()).toHaveLength(2_001);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { postgresDatabase, postgresServer, sqliteDatabase } from '../../test/databases.ts';
import { networkHasher } from './networks.ts';
import { fieldData, groupCommit, percentile } from './repository.ts';

const postgres = await postgresServer();
afterAll(() => postgres?.stop());
const backends: [string, () => Promise<Db>][] = [['SQLite', async () => (await sqliteDatabase()).db]];
if (postgres) backends.push(['PostgreSQL', () => postgresDatabase(postgres.url)]);

describe('percentile (nearest rank)', () => {
  it('gives the value below which the share of samples fall', () => {
    const values = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000];
    expect(percentile(values, 0.75)).toBe(800);
    expect(percentile(values, 0.95)).toBe(1000);
    expect(percentile([5, 1, 3, 2], 0.75)).toBe(3);
    expect(percentile([42], 0.75)).toBe(42);
    expect(percentile([], 0.75)).toBeUndefined();
  });
});

describe('group commit', () => {
  const report = (route: string) => ({
    route,
    remote: 'vendor',
    version: 'v1',
    shell: 'S',
    viewport: 'phone' as const,
    entries: [],
  });

  it('writes the reports that arrive during a write together in the next one; each waits for its own', async () => {
    const writes: string[][] = [];
    let release = () => {};
    const store = groupCommit(async (reports) => {
      writes.push(reports.map((item) => item.route));
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const settled: string[] = [];
    const first = store(report('/a')).then(() => settled.push('/a'));
    const later = ['/b', '/c', '/d'].map((route) => store(report(route)).then(() => settled.push(route)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toEqual([]);
    release();
    await Promise.all([first, ...later]);
    expect(writes).toEqual([['/a'], ['/b', '/c', '/d']]);
    expect(settled).toEqual(['/a', '/b', '/c', '/d']);
  });

  it('fails the reports of a write that fails, and goes on with the next', async () => {
    let fail = true;
    const store = groupCommit(async () => {
      if (fail) throw new Error('disk full');
    });
    await expect(store(report('/a'))).rejects.toThrow('disk full');
    fail = false;
    await expect(store(report('/b'))).resolves.toBeUndefined();
  });
});

/** What the release watch counts of vendor v1 since `since`, at most 5 views a network. */
const vendorV1Since = (since: Date) => ({ remote: 'vendor', version: 'v1', since, maxPerNetwork: 5 });

describe.each(backends)('field data on %s', (_name, open) => {
  const tags = { route: '/vendor', remote: 'vendor', shell: 'S1', viewport: 'phone' as const };

  it('rolls an hour up into views, p75 and p95 of each metric, and error counts; the figures and top errors read them', async () => {
    const db = await open();
    let clock = new Date('2026-11-25T10:05:00.000Z');
    const data = fieldData(db, () => clock);
    const inps = [40, 80, 120, 160, 200, 240, 280, 320, 360, 400, 440, 480, 520, 560, 600, 640, 680, 720, 760, 800];
    for (const [index, value] of inps.entries()) {
      await data.store({ ...tags, version: 'v1', view: true, entries: [{ metric: 'INP', value }] });
      if (index % 10 === 0) await data.store({ ...tags, version: 'v1', entries: [{ error: 'Boom', count: 3 }] });
    }
    clock = new Date('2026-11-25T10:40:00.000Z');
    await data.store({ ...tags, version: 'v2', view: true, entries: [{ error: 'Boom', count: 1 }] });
    await data.rollUp(new Date('2026-11-25T10:00:00.000Z'));
    const hours = await db.selectFrom('field_hours').selectAll().orderBy('version').orderBy('kind').execute();
    expect(hours.map((row) => [row.version, row.kind, row.name, row.count, row.p75, row.p95])).toEqual([
      ['v1', 'error', 'Boom', 6, null, null],
      ['v1', 'metric', 'INP', 20, 600, 760],
      ['v1', 'view', '', 20, null, null],
      // A view with an error is counted as such once, whatever the error's count.
      ['v2', 'erred', '', 1, null, null],
      ['v2', 'error', 'Boom', 1, null, null],
      ['v2', 'view', '', 1, null, null],
    ]);
    // Rolling an hour up again replaces its figures, never adds to them.
    await data.rollUp(new Date('2026-11-25T10:30:00.000Z'));
    expect(await db.selectFrom('field_hours').selectAll().execute()).toHaveLength(6);

    const { figures, exact } = await data.figures({ since: new Date('2026-11-25T09:00:00.000Z') });
    expect(exact).toBe(true);
    expect(figures.find((row) => row.version === 'v1')).toMatchObject({
      views: 20,
      errorViews: 0,
      errors: 6,
      p75: { INP: 600 },
    });
    expect(figures.find((row) => row.version === 'v2')).toMatchObject({ views: 1, errorViews: 1, errors: 1 });
    const [boom] = await data.topErrors({ since: new Date('2026-11-25T09:00:00.000Z') });
    expect(boom).toMatchObject({ message: 'Boom', count: 7, firstVersion: 'v1' });
    await db.destroy();
  });

  it('splits a route’s figures by phone and desktop, and gives one route’s trend an hour a row', async () => {
    const db = await open();
    let clock = new Date('2026-11-25T10:05:00.000Z');
    const data = fieldData(db, () => clock);
    const view = (viewport: 'phone' | 'desktop', lcp: number, extra: object = {}) =>
      data.store({ ...tags, viewport, version: 'v1', view: true, entries: [{ metric: 'LCP', value: lcp }], ...extra });
    for (const lcp of [1000, 1200, 1400, 1600]) await view('phone', lcp);
    await view('desktop', 400);
    await data.store({ ...tags, version: 'v1', entries: [{ error: 'Boom', count: 1 }] });
    clock = new Date('2026-11-25T11:10:00.000Z');
    await view('desktop', 600);
    await data.store({ ...tags, route: '/business', remote: 'business', version: 'b1', view: true, entries: [] });

    const devices = await data.deviceFigures({ since: new Date('2026-11-25T09:00:00.000Z'), remote: 'vendor' });
    expect(devices.map(({ device, views, p75 }) => ({ device, views, p75 }))).toEqual(
      expect.arrayContaining([
        { device: 'phone', views: 4, p75: { LCP: 1400 } },
        { device: 'desktop', views: 2, p75: { LCP: 600 } },
      ]),
    );
    expect(devices).toHaveLength(2);

    const trend = await data.hourlyTrend({ since: new Date('2026-11-25T09:00:00.000Z'), route: '/vendor' });
    expect(trend).toEqual([
      { hour: '2026-11-25T10:00:00.000Z', views: 5, errorViews: 0, errors: 1, p75: { LCP: 1400 } },
      { hour: '2026-11-25T11:00:00.000Z', views: 1, errorViews: 0, errors: 0, p75: { LCP: 600 } },
    ]);
    // Beyond the raw reports' 48 hours the trend reads the hourly roll-ups.
    await data.rollUp(new Date('2026-11-25T10:00:00.000Z'));
    clock = new Date('2026-11-28T12:00:00.000Z');
    const later = await data.hourlyTrend({ since: new Date('2026-11-25T00:00:00.000Z'), route: '/vendor' });
    expect(later[0]).toEqual({
      hour: '2026-11-25T10:00:00.000Z',
      views: 5,
      errorViews: 0,
      errors: 1,
      p75: { LCP: 1400 },
    });
    await db.destroy();
  });

  it('counts, for a decision, each ticketed view once, at most five per network an hour, erred when any of its beacons carried an error', async () => {
    const db = await open();
    let clock = new Date('2026-11-25T10:05:00.000Z');
    const data = fieldData(db, () => clock);
    const beacon = (ticket: string | null, network: string, extra: object = {}) =>
      data.store({ ...tags, version: 'v1', view: true, entries: [], ticket, network, ...extra });
    // Twenty reports from one network: five count this hour.
    for (let i = 0; i < 20; i++) await beacon(`one-${String(i).padStart(5, '0')}`, 'net-one');
    // Reports without a ticket are received, never counted.
    for (let i = 0; i < 30; i++) await beacon(null, `forged-${i}`);
    // One ticket brought back twice is one view; a later beacon of a view with an error marks it.
    await beacon('two-1', 'net-two');
    await beacon('two-1', 'net-two');
    await beacon('two-1', 'net-two', { view: false, entries: [{ error: 'Boom', count: 4 }] });
    await beacon('three-1', 'net-three', { entries: [{ metric: 'INP', value: 300 }] });
    const since = new Date('2026-11-25T10:00:00.000Z');
    const counted = await data.countedFigures({ ...vendorV1Since(since), reports: true });
    expect(counted).toEqual({
      reports: 54,
      reportNetworks: 33,
      views: 7,
      errorViews: 1,
      networks: 3,
      inpP75: 300,
      routes: ['/vendor'],
      // In the order the views came (here, in one millisecond: by their tickets).
      perNetwork: [
        { views: 5, erred: 0 },
        { views: 1, erred: 0, inp: 300 },
        { views: 1, erred: 1 },
      ],
    });
    // What the watch reads at each look: the counted views alone, not the reports beside them.
    expect(await data.countedFigures(vendorV1Since(since))).not.toHaveProperty('reports');
    // The next hour the same network counts again, up to five.
    clock = new Date('2026-11-25T11:05:00.000Z');
    for (let i = 0; i < 8; i++) await beacon(`one-${String(100 + i).padStart(5, '0')}`, 'net-one');
    expect((await data.countedFigures(vendorV1Since(since))).views).toBe(12);
    expect(
      (await data.countedFigures({ remote: 'vendor', version: 'v2', since, maxPerNetwork: 5, reports: true })).reports,
    ).toBe(0);
    await db.destroy();
  });

  it("counts a view's goal once, only for a view the site served, whichever beacon comes first", async () => {
    const db = await open();
    const data = fieldData(db, () => new Date('2026-11-25T10:05:00.000Z'));
    const beacon = (ticket: string | null, network: string, extra: object = {}) =>
      data.store({ ...tags, version: 'v1', view: true, entries: [], ticket, network, ...extra });
    const goal = (ticket: string | null, network: string, name = 'portal-click') =>
      beacon(ticket, network, { view: false, goal: name });
    // The goal's beacon first (a click), the view's counting beacon when the page is hidden; a second click adds none.
    await goal('conv-1', 'net-a');
    await beacon('conv-1', 'net-a');
    await goal('conv-1', 'net-a');
    await beacon('plain-1', 'net-a');
    // A goal without a ticket, or with the ticket of no counted view, counts nothing, nor is a view.
    await goal(null, 'net-b');
    await goal('nobody-1', 'net-b');
    // Another goal is not this one.
    await beacon('other-1', 'net-c');
    await goal('other-1', 'net-c', 'store-click');
    const since = new Date('2026-11-25T10:00:00.000Z');
    const counted = await data.countedFigures({ ...vendorV1Since(since), goal: 'portal-click' });
    expect(counted).toMatchObject({ views: 3, conversions: 1, networks: 2 });
    expect(counted.perNetwork).toEqual([
      { views: 2, erred: 0, conversions: 1 },
      { views: 1, erred: 0 },
    ]);
    // Without a goal asked for, the figures are as before.
    expect(await data.countedFigures(vendorV1Since(since))).not.toHaveProperty('conversions');
    await db.destroy();
  });

  it('counts one network as one across midnight, by the hash with the key of the window’s first day', async () => {
    const db = await open();
    let clock = new Date('2026-11-25T23:50:00.000Z');
    const data = fieldData(db, () => clock);
    const hasher = networkHasher(db);
    const beacon = async (ticket: string) => {
      const [network, ...earlierNetworks] = await hasher.hashes('203.0.113.7', clock);
      await data.store({
        ...tags,
        version: 'v1',
        view: true,
        entries: [],
        ticket,
        network,
        earlierNetworks: earlierNetworks as [string, string],
      });
    };
    await beacon('before-0');
    clock = new Date('2026-11-26T00:10:00.000Z');
    await beacon('after-0');
    const since = new Date('2026-11-25T23:00:00.000Z');
    const counted = await data.countedFigures(vendorV1Since(since));
    expect([counted.views, counted.networks]).toEqual([2, 1]);
    await db.destroy();
  });

  it('keeps the 20 most frequent error messages of a version an hour in the roll-up and counts the rest as one', async () => {
    const db = await open();
    const clock = new Date('2026-11-25T10:05:00.000Z');
    const data = fieldData(db, () => clock);
    for (let i = 0; i < 30; i++) {
      await data.store({
        ...tags,
        version: 'v1',
        view: true,
        entries: [{ error: `Error ${i}`, count: i < 20 ? 5 : 1 }],
      });
    }
    await data.rollUp(clock);
    const errors = await db.selectFrom('field_hours').selectAll().where('kind', '=', 'error').execute();
    expect(errors).toHaveLength(21);
    expect(errors.find((row) => row.name === 'other errors')).toMatchObject({ count: 10 });
    expect(await data.rawBytes()).toBeGreaterThan(0);
    await db.destroy();
  });

  it('keeps raw reports 48 hours and hourly figures 90 days', async () => {
    const db = await open();
    let clock = new Date('2026-08-01T10:00:00.000Z');
    const data = fieldData(db, () => clock);
    await data.store({ ...tags, version: 'old', view: true, entries: [] });
    await data.rollUp(clock);
    clock = new Date('2026-11-25T10:00:00.000Z');
    await data.store({ ...tags, version: 'gone', view: true, entries: [] });
    clock = new Date('2026-11-26T12:00:00.000Z');
    await data.store({ ...tags, version: 'kept', view: true, entries: [] });
    clock = new Date('2026-11-27T10:30:00.000Z');
    const purged = await data.rollUpAndPurge();
    expect(purged).toEqual({ raw: 2, hours: 1 });
    const left = await db.selectFrom('field_views').select('version').execute();
    expect(left.map((row) => row.version)).toEqual(['kept']);
    await db.destroy();
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { postgresDatabase, postgresServer, sqliteDatabase } from '../../test/databases.ts';
import { experimentDays, judgeExperimentOver, remoteGoals } from './experiment-days.ts';
import { networkHasher } from './networks.ts';
import { fieldData } from './repository.ts';

const postgres = await postgresServer();
afterAll(() => postgres?.stop());
const backends: [string, () => Promise<Db>][] = [['SQLite', async () => (await sqliteDatabase()).db]];
if (postgres) backends.push(['PostgreSQL', () => postgresDatabase(postgres.url)]);

describe('the goals of a remote', () => {
  it("are its pages' goals, once each; a remote whose pages have none has none", () => {
    expect(remoteGoals('vendor')).toEqual(['portal-click']);
    expect(remoteGoals('consumer')).toEqual(['store-click']);
    expect(remoteGoals('legal')).toEqual([]);
  });
});

describe.each(backends)("an experiment's days on %s", (_name, open) => {
  /** A visitor's view of /vendor from `address` at `clock`, with its ticket; `converts`: a portal click too. */
  async function harness() {
    const db = await open();
    let clock = new Date('2026-11-20T10:00:00.000Z');
    const now = () => clock;
    const data = fieldData(db, now);
    const hasher = networkHasher(db);
    let tickets = 0;
    const view = async (address: string, version: string, converts = false) => {
      const [network, ...earlierNetworks] = await hasher.hashes(address, clock);
      const ticket = `ticket-${++tickets}`;
      const report = {
        route: '/vendor',
        remote: 'vendor',
        shell: 'S1',
        viewport: 'phone' as const,
        version,
        entries: [],
        ticket,
        network,
        earlierNetworks: earlierNetworks as [string, string],
      };
      await data.store({ ...report, view: true });
      if (converts) await data.store({ ...report, goal: 'portal-click' });
    };
    const at = (iso: string) => (clock = new Date(iso));
    return { db, now, view, at, days: experimentDays(db, now) };
  }

  it('names a network alike on the days it comes back within two days, and adds its days up', async () => {
    const { db, view, at, days } = await harness();
    // Day 1: one network, three views of v2 (one converts); another network, one view.
    at('2026-11-20T10:00:00.000Z');
    await view('203.0.113.7', 'v2', true);
    await view('203.0.113.8', 'v2');
    await view('203.0.113.9', 'v2');
    await view('198.51.100.1', 'v2');
    await days.rollUpRecentDays();
    // Day 2, the first network again (a key of its own that day), two views, both convert.
    at('2026-11-21T09:00:00.000Z');
    await view('203.0.113.20', 'v2', true);
    await view('203.0.113.21', 'v2', true);
    await days.rollUpRecentDays();
    // Day 4, after a day away: still the same network. The current version's views are its own arm.
    at('2026-11-23T09:00:00.000Z');
    await view('203.0.113.30', 'v2', true);
    await view('203.0.113.31', 'v1', true);
    await days.rollUpRecentDays();
    const since = new Date('2026-11-20T00:00:00.000Z');
    const next = await days.evidence({ remote: 'vendor', version: 'v2', goal: 'portal-click', since });
    expect(next.sort((a, b) => b.views - a.views)).toEqual([
      { network: expect.any(String), views: 6, conversions: 4, assigned: 0 },
      { network: expect.any(String), views: 1, conversions: 0, assigned: 0 },
    ]);
    expect(await days.evidence({ remote: 'vendor', version: 'v1', goal: 'portal-click', since })).toEqual([
      { network: expect.any(String), views: 1, conversions: 1, assigned: 0 },
    ]);
    // Another goal counts nothing here; a day's roll-up done again replaces the day's rows.
    expect(await days.evidence({ remote: 'vendor', version: 'v2', goal: 'store-click', since })).toEqual([]);
    await days.rollUpRecentDays();
    expect(await db.selectFrom('field_goal_days').selectAll().execute()).toHaveLength(5);
    await db.destroy();
  });

  it('gives a network back after three days away a new name (what an adversary gains by waiting)', async () => {
    const { db, view, at, days } = await harness();
    at('2026-11-20T10:00:00.000Z');
    await view('203.0.113.7', 'v2');
    await days.rollUpRecentDays();
    at('2026-11-24T10:00:00.000Z');
    await view('203.0.113.7', 'v2');
    await days.rollUpRecentDays();
    const since = new Date('2026-11-20T00:00:00.000Z');
    expect(await days.evidence({ remote: 'vendor', version: 'v2', goal: 'portal-click', since })).toHaveLength(2);
    await db.destroy();
  });

  it('judges the two arms over their days, and says when the last planned day has passed', async () => {
    const { db, now, view, at } = await harness();
    at('2026-11-20T10:00:00.000Z');
    for (let i = 0; i < 40; i++) await view(`10.0.${i}.1`, 'v2', i % 2 === 0);
    for (let i = 0; i < 40; i++) await view(`10.1.${i}.1`, 'v1', i % 10 === 0);
    const experiment = {
      remote: 'vendor',
      version: 'v2',
      current: 'v1',
      goal: 'portal-click',
      since: new Date('2026-11-20T09:00:00.000Z'),
      days: 14,
      share: 50,
    };
    const verdict = await judgeExperimentOver(db, experiment, { now });
    expect([verdict.next.views, verdict.next.conversions, verdict.current.views, verdict.current.conversions]).toEqual([
      40, 20, 40, 4,
    ]);
    expect(verdict.decision).toBe('continue');
    at('2026-12-05T10:00:00.000Z');
    expect((await judgeExperimentOver(db, experiment, { now })).decision).toBe('no difference shown');
    await db.destroy();
  });
});

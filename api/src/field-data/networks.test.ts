import { describe, expect, it } from 'vitest';
import { sqliteDatabase } from '../../test/databases.ts';
import { networkHasher, networkOf } from './networks.ts';

describe('client networks', () => {
  it('are the /24 of an IPv4 address (mapped ones too) and the /48 of an IPv6 one', () => {
    expect(networkOf('203.0.113.7')).toBe('203.0.113.0/24');
    expect(networkOf('203.0.113.250')).toBe('203.0.113.0/24');
    expect(networkOf('::ffff:203.0.113.7')).toBe('203.0.113.0/24');
    expect(networkOf('2001:db8:abcd:12::1')).toBe('2001:db8:abcd::/48');
    expect(networkOf('2001:db8:abcd:ffff::9')).toBe('2001:db8:abcd::/48');
    expect(networkOf('not an address')).toBeUndefined();
  });

  it('are kept as a hash keyed with the day’s key: the same within a day, unlinkable across days, never the address', async () => {
    const { db } = await sqliteDatabase();
    const hasher = networkHasher(db);
    const monday = new Date('2026-11-23T10:00:00.000Z');
    const tuesday = new Date('2026-11-24T10:00:00.000Z');
    const a = await hasher.hash('203.0.113.7', monday);
    expect(a).toMatch(/^[\w-]{8}$/);
    expect(a).not.toContain('203');
    expect(await hasher.hash('203.0.113.99', new Date('2026-11-23T23:59:00.000Z'))).toBe(a);
    expect(await hasher.hash('198.51.100.7', monday)).not.toBe(a);
    expect(await hasher.hash('203.0.113.7', tuesday)).not.toBe(a);
    // A report keeps its network's hash with the two days' keys before its own: Tuesday's report names Monday's hash.
    const [onTuesday, withMondayKey] = await hasher.hashes('203.0.113.7', tuesday);
    expect([onTuesday, withMondayKey]).toEqual([await hasher.hash('203.0.113.7', tuesday), a]);
    // Another instance on the same database hashes alike: the day's key is shared, made once.
    expect(await networkHasher(db).hash('203.0.113.7', monday)).toBe(a);
    const keys = await db.selectFrom('field_network_keys').selectAll().orderBy('day').execute();
    expect(keys.map((row) => row.day)).toEqual(['2026-11-22', '2026-11-23', '2026-11-24']);
    expect(keys[1]!.key).not.toBe(keys[2]!.key);
    // The keys go with the raw reports they keyed.
    expect(await hasher.purge(tuesday)).toBe(2);
    expect(await db.selectFrom('field_network_keys').select('day').execute()).toEqual([{ day: '2026-11-24' }]);
    await db.destroy();
  });
});

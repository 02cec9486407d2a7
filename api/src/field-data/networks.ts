import { createHmac, randomBytes } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Db } from '../db/database.ts';

/**
 * The client network a report came from, for the release watch's "many networks, none dominant": an IPv4 /24 or an
 * IPv6 /48, kept only as a hash keyed with that day's key. Each UTC day has a new random key (in the database, so that
 * every instance hashes alike); keys go with the raw reports after 48 hours, and then nothing links a hash to an address.
 */

/** The /24 of an IPv4 address (IPv4-mapped IPv6 too), the /48 of an IPv6 one; undefined for anything else. */
export function networkOf(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return `${parsed.toByteArray().slice(0, 3).join('.')}.0/24`;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 3);
  return `${parts.map((part) => part.toString(16)).join(':')}::/48`;
}

export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** Hashes networks with the day's key, made once a day by whichever instance needs it first. */
export function networkHasher(db: Db) {
  const keys = new Map<string, Promise<string>>();
  const keyOf = (day: string) => {
    let key = keys.get(day);
    if (!key) {
      key = (async () => {
        await db
          .insertInto('field_network_keys')
          .values({ day, key: randomBytes(32).toString('base64url') })
          .onConflict((conflict) => conflict.column('day').doNothing())
          .execute();
        const row = await db
          .selectFrom('field_network_keys')
          .select('key')
          .where('day', '=', day)
          .executeTakeFirstOrThrow();
        return row.key;
      })();
      key.catch(() => keys.delete(day));
      keys.set(day, key);
      // The keys of the last three days in memory at the most.
      for (const known of [...keys.keys()].sort().slice(0, -3)) keys.delete(known);
    }
    return key;
  };
  return {
    /** The network's hash for `at`'s day (48 bits: enough to tell networks apart); '' for an address that names none. */
    async hash(address: string, at: Date): Promise<string> {
      const network = networkOf(address);
      if (!network) return '';
      return createHmac('sha256', await keyOf(dayOf(at)))
        .update(network)
        .digest('base64url')
        .slice(0, 8);
    },
    /**
     * The network's hashes with the keys of `at`'s day and of the two days before it: a report keeps all three, so that
     * a window of up to 48 hours names each network by one hash, the key of the window's first day (see
     * `networkColumn`), across midnight. '' each for an address that names none.
     */
    async hashes(address: string, at: Date): Promise<[today: string, yesterday: string, dayBefore: string]> {
      const day = (back: number) => new Date(at.getTime() - back * 86_400_000);
      const [today, yesterday, dayBefore] = await Promise.all([0, 1, 2].map((back) => this.hash(address, day(back))));
      return [today!, yesterday!, dayBefore!];
    },
    /** Deletes the keys of days whose raw reports are gone (older than `before`). */
    async purge(before: Date) {
      const deleted = await db.deleteFrom('field_network_keys').where('day', '<', dayOf(before)).executeTakeFirst();
      return Number(deleted.numDeletedRows);
    },
  };
}

import type { Db } from '../db/database.ts';

export type SharedLocation =
  { kind: 'position'; latitude: number; longitude: number; accuracy: number } | { kind: 'address'; address: string };

/** Stored locations, one per link token; a later share replaces the earlier one. */
export function locationShares(db: Db, now: () => Date = () => new Date()) {
  return {
    async share(token: string, location: SharedLocation) {
      const at = now().toISOString();
      const values =
        location.kind === 'position'
          ? { latitude: location.latitude, longitude: location.longitude, accuracy_m: location.accuracy, address: null }
          : { latitude: null, longitude: null, accuracy_m: null, address: location.address };
      await db
        .insertInto('location_shares')
        .values({ token, ...values, first_shared_at: at, shared_at: at })
        .onConflict((conflict) => conflict.column('token').doUpdateSet({ ...values, shared_at: at }))
        .execute();
    },

    async get(token: string) {
      return db.selectFrom('location_shares').selectAll().where('token', '=', token).executeTakeFirst();
    },

    async exists(token: string): Promise<boolean> {
      return Boolean(
        await db.selectFrom('location_shares').select('token').where('token', '=', token).executeTakeFirst(),
      );
    },

    /** Deletes locations not updated for `days`: a courier needs the latest one for a few days, nobody longer. */
    async purgeOlderThan(days: number): Promise<number> {
      const cutoff = new Date(now().getTime() - days * 86_400_000).toISOString();
      const result = await db.deleteFrom('location_shares').where('shared_at', '<', cutoff).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

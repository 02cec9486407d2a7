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
  };
}

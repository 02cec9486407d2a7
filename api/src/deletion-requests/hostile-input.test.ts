import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { postgresDatabase, postgresServer, sqliteDatabase } from '../../test/databases.ts';
import { testApi } from '../../test/app.ts';

const postgres = await postgresServer();
if (!postgres && process.env.CI) throw new Error('CI must run the hostile-input tests against PostgreSQL too');
afterAll(() => postgres?.stop());

const backends: [string, () => Promise<Db>][] = [['SQLite', async () => (await sqliteDatabase()).db]];
if (postgres) backends.push(['PostgreSQL', () => postgresDatabase(postgres.url)]);

// Every code point, NUL, escapes and lone surrogates included: what a browser form never sends, an attacker does.
const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.constantFrom('\u0000', 'Ann\u0000Lee', '\u001b[2J\u001b]52;c;aGk=\u0007', '\u009b31m', '\ud800'),
);
const fieldValue = fc.oneof(
  anyText,
  fc.emailAddress(),
  fc.emailAddress().map((email) => `${email}\u0000`),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const key = fc.oneof(
  fc.constantFrom('name', 'email', 'reason', 'token', 'address', 'position', '__proto__', 'constructor', 'toString'),
  fc.string({ maxLength: 20 }),
);
const shareToken = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{16,40}$/), anyText);
const body = fc.oneof(
  fc.dictionary(key, fieldValue, { maxKeys: 6 }).map((value) => JSON.stringify(value)),
  fc.json(),
  fc.string({ maxLength: 200 }),
  fc.record({ name: fieldValue, email: fieldValue, reason: fieldValue }).map((value) => JSON.stringify(value)),
  fc
    .record({ token: shareToken, address: fieldValue }, { requiredKeys: ['token'] })
    .map((value) => JSON.stringify(value)),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/xml',
  '',
);
const url = fc.constantFrom('/api/delete-account', '/api/share-location');

async function rowCounts(db: Db) {
  const count = async (table: 'deletion_requests' | 'location_shares') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirst()
      )?.n,
    );
  return (await count('deletion_requests')) + (await count('location_shares'));
}

describe.each(backends)('hostile and malformed bodies on %s', (_name, open) => {
  it('never cause a 5xx, and only an accepted request stores a row', async () => {
    const db = await open();
    const { app } = await testApi(db);
    await fc.assert(
      fc.asyncProperty(url, body, contentType, async (path, payload, type) => {
        const before = await rowCounts(db);
        const response = await app.inject({
          method: 'POST',
          url: path,
          headers: type ? { 'content-type': type } : {},
          payload,
        });
        expect(response.statusCode, response.body).toBeLessThan(500);
        const stored = (await rowCounts(db)) - before;
        // 303: a native form post answered on its page, whether it was stored or refused.
        if (response.statusCode === 202 || response.statusCode === 303) expect(stored).toBeLessThanOrEqual(1);
        else expect(stored).toBe(0);
        if (response.statusCode !== 303) expect(response.headers['content-type']).toContain('application/json');
      }),
      { numRuns: 2000 },
    );
    await app.close();
    await db.destroy();
  }, 180_000);
});

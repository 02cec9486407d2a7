import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { sqliteDatabase } from '../../test/databases.ts';
import { countRows, testApi } from '../../test/app.ts';

let db: Db;
let app: FastifyInstance;
beforeAll(async () => {
  db = (await sqliteDatabase()).db;
  ({ app } = await testApi(db));
});
afterAll(async () => {
  await app.close();
  await db.destroy();
});

const fieldValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.emailAddress(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
const key = fc.oneof(
  fc.constantFrom('name', 'email', 'reason', '__proto__', 'constructor', 'prototype', 'toString'),
  fc.string({ maxLength: 20 }),
);
const body = fc.oneof(
  fc.dictionary(key, fieldValue, { maxKeys: 6 }).map((value) => JSON.stringify(value)),
  fc.json(),
  fc.string({ maxLength: 200 }),
  fc.record({ name: fieldValue, email: fieldValue, reason: fieldValue }).map((value) => JSON.stringify(value)),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/xml',
  '',
);

describe('hostile and malformed bodies', () => {
  it('never cause a 5xx, and only a 202 ever stores a row', async () => {
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, type) => {
        const before = await countRows(db);
        const response = await app.inject({
          method: 'POST',
          url: '/api/delete-account',
          headers: type ? { 'content-type': type } : {},
          payload,
        });
        expect(response.statusCode).toBeLessThan(500);
        const after = await countRows(db);
        if (response.statusCode !== 202) expect(after).toBe(before);
        else expect(after - before).toBeLessThanOrEqual(1);
        expect(response.headers['content-type']).toContain('application/json');
      }),
      { numRuns: 3000 },
    );
  }, 120_000);
});

import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import { readConfig, type ApiConfig } from '../src/config.ts';
import type { Db } from '../src/db/database.ts';
import { formOutcomeCookies } from '../src/http/form-posts.ts';
import type { KnownVersion } from '../src/field-data/routes.ts';
import { createApiServer } from '../src/server.ts';
import { sqliteDatabase } from './databases.ts';

/** The API on a real SQLite file (or the given database), with a logger whose lines the test can read. */
export async function testApi(
  db: Db,
  {
    allowedOrigins = [],
    trustProxy = false,
    locationNewTokensPerDay = 10_000,
    fieldDataPerIp = 10_000,
    fieldDataMaxBytes = 1024 * 1024 * 1024,
    knownVersion,
    metrics,
    databaseReady,
    ...limits
  }: Partial<ApiConfig['rateLimit']> &
    Partial<
      Pick<
        ApiConfig,
        'allowedOrigins' | 'trustProxy' | 'locationNewTokensPerDay' | 'fieldDataPerIp' | 'fieldDataMaxBytes' | 'metrics'
      >
    > & {
      knownVersion?: KnownVersion;
      databaseReady?: () => boolean;
    } = {},
) {
  const base = readConfig({});
  const config: ApiConfig = {
    ...base,
    allowedOrigins,
    trustProxy,
    locationNewTokensPerDay,
    fieldDataPerIp,
    fieldDataMaxBytes,
    metrics: metrics ?? base.metrics,
    rateLimit: { ...base.rateLimit, perIpPoints: 10_000, perEmailPoints: 10_000, ...limits },
  };
  const logLines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const app = await createApiServer({ db, config, logger: { level: 'info', stream }, knownVersion, databaseReady });
  return { app, logLines, config };
}

/** A fresh API on its own SQLite file for every test, closed after it; `use` hears each one. */
export function apiForEachTest(use: (api: Awaited<ReturnType<typeof testApi>> & { db: Db }) => void) {
  let current: { app: FastifyInstance; db: Db } | undefined;
  beforeEach(async () => {
    const { db } = await sqliteDatabase();
    const api = { ...(await testApi(db)), db };
    current = api;
    use(api);
  });
  afterEach(async () => {
    await current?.app.close();
    await current?.db.destroy();
  });
}

/** A POST of `payload` (JSON unless a string is given as it is) to `url`, with JSON's content type unless told. */
export const postTo = (app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

/** The cookies an answer sets, as the browser sends them back (name to value). */
export function cookiesSet(response: { headers: Record<string, unknown> }): Record<string, string> {
  const lines = [response.headers['set-cookie'] ?? []].flat().map(String);
  return Object.fromEntries(
    lines.map((line) => {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      return [pair.slice(0, at), decodeURIComponent(pair.slice(at + 1))];
    }),
  );
}

/**
 * What the page a native form post sent the browser to will show: the outcome its cookies carry, read as the site
 * server reads them (with the test API's cookie secret).
 */
export function outcomeIn(response: { headers: Record<string, unknown> }, page: string) {
  return formOutcomeCookies(readConfig({}).cookieSecrets).read(
    { cookies: cookiesSet(response), protocol: 'http' },
    page,
  );
}

export const validBody = { name: 'Ann Lee', email: 'Ann@Example.com', reason: 'I no longer use the app.' };

/** Rows stored in `table` (deletion requests unless said). */
export async function countRows(db: Db, table: 'deletion_requests' | 'email_outbox' = 'deletion_requests') {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The reference of the open request for an address: the API never tells a client, the database does. */
export async function referenceOf(db: Db, email: string): Promise<string> {
  const row = await db
    .selectFrom('deletion_requests')
    .select('reference')
    .where('email', '=', email)
    .orderBy('received_at', 'desc')
    .executeTakeFirstOrThrow();
  return row.reference;
}

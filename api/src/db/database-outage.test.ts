import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort, postgresDatabaseUrl, postgresServer } from '../../test/databases.ts';
import { outcomeIn, testApi } from '../../test/app.ts';
import { openDatabase, openMigratedDatabase } from './database.ts';

const postgres = await postgresServer();
if (!postgres && process.env.CI) throw new Error('CI must run the storage tests against PostgreSQL too');
afterAll(() => postgres?.stop());

describe.runIf(postgres)('PostgreSQL ending the pool’s connections', () => {
  it('costs the process nothing: the next query opens another connection, and it is said once', async () => {
    const databaseUrl = await postgresDatabaseUrl(postgres!.url);
    const db = await openMigratedDatabase({ databaseUrl, dataDir: '' });
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    // Several idle connections in the pool, as a busy instance has.
    await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.05)`.execute(db)));
    const admin = new pg.Client({ connectionString: postgres!.url });
    await admin.connect();
    const { rows } = await admin.query<{ ended: boolean }>(
      `select pg_terminate_backend(pid) as ended from pg_stat_activity
        where datname = $1 and backend_type = 'client backend'`,
      [new URL(databaseUrl).pathname.slice(1)],
    );
    await admin.end();
    expect(rows.filter((row) => row.ended).length).toBeGreaterThanOrEqual(4);
    // Each ended connection is an `error` on the pool: with no listener, an uncaught exception (the process died).
    const said = () => warnings.mock.calls.filter(([text]) => /PostgreSQL ended an idle connection/.test(String(text)));
    await vi.waitFor(() => expect(said()).toHaveLength(1));
    expect(String(said()[0]![0])).toMatch(/\(terminating connection due to administrator command\)/);
    const { rows: answer } = await sql<{ one: number }>`select 1 as one`.execute(db);
    expect(answer).toEqual([{ one: 1 }]);
    warnings.mockRestore();
    await db.destroy();
  });
});

describe.runIf(postgres)('the API while PostgreSQL is away', () => {
  it('answers 503 with Retry-After at once, never a 500 or a hang, and a native form post gets its page back', async () => {
    // A database nobody answers for: PostgreSQL stopped.
    const db = await openDatabase({
      databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/site`,
      dataDir: '',
    });
    const { app } = await testApi(db);
    const body = { name: 'Ann Lee', email: 'ann@example.com', reason: 'Moving on.' };
    const started = performance.now();
    const json = await app.inject({ method: 'POST', url: '/api/delete-account', payload: body });
    expect(json.statusCode).toBe(503);
    expect(json.headers['retry-after']).toBe('5');
    expect(json.json()).toMatchObject({ error: 'Service Unavailable', message: /try again in a moment/ });
    const share = await app.inject({
      method: 'POST',
      url: '/api/share-location',
      payload: { token: 'a'.repeat(43), address: '1 Main Street' },
    });
    expect(share.statusCode).toBe(503);
    expect(performance.now() - started).toBeLessThan(2_000);
    // Without JavaScript: back to the form's page, with the message and what was typed.
    const form = await app.inject({
      method: 'POST',
      url: '/api/delete-account',
      headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'site.example' },
      payload: new URLSearchParams(body).toString(),
    });
    expect(form.statusCode).toBe(303);
    expect(form.headers.location).toBe('/delete-account');
    expect(outcomeIn(form, '/delete-account')).toMatchObject({
      message: /try again in a moment/,
      values: { name: 'Ann Lee', email: 'ann@example.com', reason: 'Moving on.' },
    });
    await app.close();
    await db.destroy();
  });
});

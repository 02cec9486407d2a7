import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../db/database.ts';
import { sqliteDatabase } from '../../test/databases.ts';
import { readConfig } from '../config.ts';
import { formOutcomeCookies } from '../http/form-posts.ts';
import { cookiesSet, countRows, outcomeIn, testApi, validBody } from '../../test/app.ts';

// The deletion form posted natively (before the page's scripts run, or without them), as a browser sends it.
let db: Db;
let app: FastifyInstance;

const formPost = (fields: Record<string, string> | string, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/delete-account',
    headers: { 'content-type': 'application/x-www-form-urlencoded', host: 'site.example', ...headers },
    payload: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
  });

/** What the page the browser is sent to will show: the outcome its cookies carry. */
const outcomeOf = (response: Awaited<ReturnType<typeof formPost>>) => outcomeIn(response, '/delete-account');

beforeEach(async () => {
  db = (await sqliteDatabase()).db;
  ({ app } = await testApi(db, { perEmailPoints: 2 }));
});
afterEach(async () => {
  await app.close();
  await db.destroy().catch(() => undefined);
});

describe('the deletion form posted natively', () => {
  it('stores the request and sends the browser back to the page (303), with nothing personal in the address', async () => {
    const response = await formPost(validBody);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/delete-account');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(outcomeOf(response)).toEqual({ form: 'delete-account', outcome: 'submitted' });
    expect(await countRows(db)).toBe(1);
  });

  it('keeps the outcome in short-lived cookies that only the form’s page receives, out of scripts’ reach', async () => {
    const [cookie] = [(await formPost(validBody)).headers['set-cookie'] ?? []].flat();
    expect(cookie).toMatch(/^form-outcome\.0=[^;]+; Max-Age=60; Path=\/delete-account; HttpOnly; SameSite=Lax$/);
  });

  it('gives back what was typed, with the spec’s reason, when the email or the reason is empty', async () => {
    const typed = { name: 'Ann Lee', email: 'ann@example.com', reason: '  ' };
    const response = await formPost(typed);
    expect(response.statusCode).toBe(303);
    expect(outcomeOf(response)).toMatchObject({ outcome: 'missing-fields', values: typed });
    expect(await countRows(db)).toBe(0);
  });

  it.each([
    ['an address that is not one', { ...validBody, email: 'ann@nowhere' }, 'Enter a valid email address.'],
    ['an unknown field', { ...validBody, admin: 'yes' }, 'Unknown field: admin.'],
    ['a name over 200 characters', { ...validBody, name: 'x'.repeat(201) }, 'Invalid name'],
  ])('refuses %s with the API’s reason, on the page', async (_case, fields, message) => {
    const response = await formPost(fields);
    expect(response.statusCode).toBe(303);
    expect(outcomeOf(response)).toMatchObject({ outcome: 'refused', message: expect.stringContaining(message) });
    expect(await countRows(db)).toBe(0);
  });

  it('refuses a field sent twice instead of picking one', async () => {
    const response = await formPost('name=Ann&email=ann%40example.com&reason=r&email=bob%40example.com');
    expect(outcomeOf(response)).toMatchObject({ outcome: 'refused', values: { email: 'ann@example.com' } });
    expect(await countRows(db)).toBe(0);
  });

  it('takes a reason of 2000 characters that percent-encoding makes 18 KB long', async () => {
    const response = await formPost({ ...validBody, reason: 'ж'.repeat(2000) });
    expect(outcomeOf(response)).toEqual({ form: 'delete-account', outcome: 'submitted' });
  });

  it('gives even the longest typed values back, over several cookies', async () => {
    // Characters that do not compress: the worst case for the cookies' size.
    const scattered = (length: number, from: number, span: number) =>
      Array.from({ length }, (_, index) => String.fromCodePoint(from + ((index * 7919) % span))).join('');
    const typed = { name: scattered(200, 0x1f300, 700), email: '', reason: scattered(2000, 0x4e00, 20_000) };
    const response = await formPost(typed);
    expect([response.headers['set-cookie']].flat().length).toBeGreaterThan(1);
    expect(outcomeOf(response)).toMatchObject({ outcome: 'missing-fields', values: typed });
  });

  it('answers a body over the form limit on the page, never with a 5xx', async () => {
    const response = await formPost({ ...validBody, reason: 'x'.repeat(30_000) });
    expect(response.statusCode).toBe(303);
    expect(outcomeOf(response)).toMatchObject({ outcome: 'refused', message: 'The request body is too large.' });
  });

  it('applies the per-email limit and says when to try again', async () => {
    await formPost(validBody);
    await formPost(validBody);
    const response = await formPost(validBody);
    expect(outcomeOf(response)).toMatchObject({
      outcome: 'refused',
      message: expect.stringMatching(/^Too many requests\. Try again in \d+ seconds\.$/),
      values: validBody,
    });
  });

  it('applies the per-address limit to form posts too, giving back what was typed', async () => {
    await app.close();
    ({ app } = await testApi(db, { perIpPoints: 1 }));
    await formPost(validBody);
    const response = await formPost({ ...validBody, email: 'bob@example.com' });
    expect(response.statusCode).toBe(303);
    expect(outcomeOf(response)).toMatchObject({
      outcome: 'refused',
      message: expect.stringMatching(/^Too many requests\. Try again in \d+ seconds\.$/),
      values: { email: 'bob@example.com' },
    });
    expect(await countRows(db)).toBe(1);
  });

  it('says the request could not be stored, and gives back what was typed, when the database is down', async () => {
    await db.destroy();
    const response = await formPost(validBody);
    expect(response.statusCode).toBe(303);
    expect(outcomeOf(response)).toMatchObject({ outcome: 'failed', values: validBody });
  });

  it('refuses a post from another site with a page that says why', async () => {
    const response = await formPost(validBody, { origin: 'https://evil.example' });
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('Cross-site requests are not accepted.');
    expect(response.body).toContain('href="/delete-account"');
    expect(await countRows(db)).toBe(0);
  });

  it('refuses a post a browser marks cross-site even without an Origin', async () => {
    const response = await formPost(validBody, { 'sec-fetch-site': 'cross-site' });
    expect(response.statusCode).toBe(403);
  });
});

describe('the cookies that carry a form’s outcome to its page', () => {
  const secret = 'n'.repeat(32);
  const oldSecret = 'o'.repeat(32);
  const page = '/delete-account';
  const outcome = { form: 'delete-account', outcome: 'refused', message: 'Call 0800 SCAM to keep your account' };
  const request = (cookies: Record<string, string>, protocol: 'http' | 'https' = 'http') => ({ cookies, protocol });
  /** The cookies a browser sends back after `redirect` set them. */
  const sentBack = (signedBy: string[], forPage = page) => {
    const cookies: Record<string, string> = {};
    const reply = {
      setCookie: (name: string, value: string) => ((cookies[name] = value), reply),
      code: () => reply,
      header: () => reply,
      send: () => reply,
    };
    formOutcomeCookies(signedBy).redirect(request({}) as never, reply as never, forPage, outcome as never);
    return cookies;
  };

  it('are signed: a planted, unsigned or altered cookie shows nothing on the page', () => {
    const reader = formOutcomeCookies([secret]);
    const genuine = sentBack([secret]);
    expect(reader.read(request(genuine), page)).toEqual(outcome);
    const value = genuine['form-outcome.0']!;
    const unsigned = value.slice(0, value.lastIndexOf('.'));
    expect(reader.read(request({ 'form-outcome.0': unsigned }), page)).toBeUndefined();
    expect(reader.read(request({ 'form-outcome.0': `${unsigned}.${'A'.repeat(43)}` }), page)).toBeUndefined();
    expect(reader.read(request({ 'form-outcome.0': `${unsigned.slice(0, -2)}AA.${value.split('.')[1]}` }), page)).toBe(
      undefined,
    );
    expect(reader.read(request(sentBack(['x'.repeat(32)])), page)).toBeUndefined();
  });

  it('are read on their own page only', () => {
    expect(formOutcomeCookies([secret]).read(request(sentBack([secret], '/share-location/abc')), page)).toBeUndefined();
  });

  it('signed with the secret being replaced are still read while both are configured', () => {
    const rotating = formOutcomeCookies([secret, oldSecret]);
    expect(rotating.read(request(sentBack([oldSecret])), page)).toEqual(outcome);
    expect(formOutcomeCookies([secret]).read(request(sentBack([oldSecret])), page)).toBeUndefined();
  });

  it('carry the __Host- prefix on https, for the whole site, and only for this host', async () => {
    const { app: behindProxy } = await testApi(db, { trustProxy: 1 });
    const response = await behindProxy.inject({
      method: 'POST',
      url: '/api/delete-account',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        host: 'site.example',
        origin: 'https://site.example',
        'x-forwarded-proto': 'https',
      },
      payload: new URLSearchParams(validBody).toString(),
    });
    expect(response.statusCode).toBe(303);
    const [cookie] = [response.headers['set-cookie'] ?? []].flat();
    expect(cookie).toMatch(/^__Host-form-outcome\.0=[^;]+; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    expect(cookie).not.toContain('Domain');
    const reader = formOutcomeCookies(readConfig({}).cookieSecrets);
    const back = cookiesSet(response);
    expect(reader.read(request(back, 'https'), page)).toEqual({ form: 'delete-account', outcome: 'submitted' });
    // The same cookie without its prefix could have been planted by another host or over http: ignored on https.
    const unprefixed = Object.fromEntries(
      Object.entries(back).map(([name, value]) => [name.replace('__Host-', ''), value]),
    );
    expect(reader.read(request(unprefixed, 'https'), page)).toBeUndefined();
    await behindProxy.close();
  });
});

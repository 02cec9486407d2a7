import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureFor, signatureHeader, signatureProblem, type DeletionEvent } from '@gift/contracts/webhooks';
import { readConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { createApiServer } from '../server.ts';
import { deletionRequests } from '../deletion-requests/repository.ts';
import { sqliteDatabase } from '../../test/databases.ts';
import { emailedToken } from '../../test/inbox.ts';
import { deliverDueWebhooks, maxWebhookAttempts, resendWebhook, webhookRetryDelayMs } from './delivery.ts';

const secret = 'a'.repeat(64);
const nextSecret = 'b'.repeat(64);

/** A receiver as the operations guide (docs/operations.md) shows it: verifies each delivery, acts once per event id, answers as told. */
type Mode = 'ok' | 'fail-twice' | 'redirect' | 'slow';
const receiver = {
  mode: 'ok' as Mode,
  secrets: [secret],
  failures: 0,
  acted: [] as DeletionEvent[],
  refused: [] as string[],
  last: undefined as { headers: http.IncomingHttpHeaders; body: string } | undefined,
};
const server = http.createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    if (receiver.mode === 'slow') return; // never answers
    if (receiver.mode === 'redirect') {
      response.writeHead(301, { location: `${origin}/elsewhere` }).end();
      return;
    }
    if (receiver.mode === 'fail-twice' && receiver.failures++ < 2) {
      response.writeHead(503).end();
      return;
    }
    const problem = signatureProblem(body, request.headers[signatureHeader] as string, receiver.secrets);
    if (problem) {
      receiver.refused.push(problem);
      response.writeHead(400).end(problem);
      return;
    }
    receiver.last = { headers: request.headers, body };
    const event = JSON.parse(body) as DeletionEvent;
    if (!receiver.acted.some((seen) => seen.id === event.id)) receiver.acted.push(event);
    response.writeHead(204).end();
  });
});
let origin = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const target = (overrides: Partial<{ url: string; secrets: string[]; timeoutMs: number }> = {}) => ({
  url: `${origin}/hooks/deletions`,
  secrets: [secret],
  timeoutMs: 2000,
  ...overrides,
});

/** A request confirmed by its owner, with webhooks on: two events queued. */
async function twoEvents(): Promise<{ db: Db; reference: string }> {
  const { db } = await sqliteDatabase();
  const requests = deletionRequests(db, { webhooks: true });
  const { reference } = await requests.submit({ name: 'Ann Lee', email: 'ann@example.com', reason: 'r' });
  await requests.confirm(await emailedToken(db, reference));
  return { db, reference };
}

const rows = (db: Db) => db.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
const later = (ms: number) => new Date(Date.now() + ms);

function reset(mode: Mode, secrets = [secret]) {
  Object.assign(receiver, { mode, secrets, failures: 0, acted: [], refused: [], last: undefined });
}

describe('webhook deliveries to the platform’s back end', () => {
  it('are signed so that the receiver verifies them, in order, once each', async () => {
    reset('ok');
    const { db, reference } = await twoEvents();
    expect(await deliverDueWebhooks(db, target())).toMatchObject({ due: 2, delivered: 2 });
    expect(receiver.refused).toEqual([]);
    expect(receiver.acted.map((event) => [event.type, event.request.reference])).toEqual([
      ['received', reference],
      ['verified', reference],
    ]);
    expect(receiver.last?.headers['giftwell-event-id']).toBe(receiver.acted[1]!.id);
    expect(await deliverDueWebhooks(db, target())).toMatchObject({ due: 0, delivered: 0 });
    expect((await rows(db)).every((row) => row.delivered_at && row.last_status === 204)).toBe(true);
    await db.destroy();
  });

  it('are refused by a receiver with another secret, and accepted during a rotation signed with both', async () => {
    reset('ok', [nextSecret]);
    const { db } = await twoEvents();
    expect((await deliverDueWebhooks(db, target())).delivered).toBe(0);
    expect(receiver.refused).toEqual(['signature does not match', 'signature does not match']);
    expect(await deliverDueWebhooks(db, target({ secrets: [secret, nextSecret] }), later(60_000))).toMatchObject({
      due: 2,
      delivered: 2,
    });
    await db.destroy();
  });

  it('count a replay older than five minutes as forged, and the same event twice as one', async () => {
    reset('ok');
    const { db } = await twoEvents();
    await deliverDueWebhooks(db, target());
    const captured = receiver.last!;
    const header = captured.headers[signatureHeader] as string;
    expect(signatureProblem(captured.body, header, [secret], Date.now() + 6 * 60_000)).toBe(
      'signed too long ago (a replay?)',
    );
    expect(signatureProblem(captured.body.replace('Ann', 'Bob'), header, [secret])).toBe('signature does not match');
    // Re-sent within the window (the CLI's resend does that): the receiver recognises the event id.
    await resendWebhook(db, 2);
    expect((await deliverDueWebhooks(db, target())).delivered).toBe(1);
    expect(receiver.acted).toHaveLength(2);
    await db.destroy();
  });

  it('retry with growing waits after a failure, and a receiver that fails twice gets each event', async () => {
    reset('fail-twice');
    const { db } = await twoEvents();
    expect(await deliverDueWebhooks(db, target())).toMatchObject({ due: 2, delivered: 0, lastError: 'answered 503' });
    let [first] = await rows(db);
    expect(first).toMatchObject({ attempts: 1, last_status: 503, last_error: 'answered 503', delivered_at: null });
    // Not due again before its wait is over.
    expect((await deliverDueWebhooks(db, target(), later(10_000))).due).toBe(0);
    expect(webhookRetryDelayMs(1)).toBe(30_000);
    expect(webhookRetryDelayMs(2)).toBe(60_000);
    expect(webhookRetryDelayMs(20)).toBe(3_600_000);
    expect(await deliverDueWebhooks(db, target(), later(31_000))).toMatchObject({ due: 2, delivered: 2 });
    [first] = await rows(db);
    expect(first).toMatchObject({ attempts: 2, last_status: 204, last_error: null });
    expect(receiver.acted).toHaveLength(2);
    await db.destroy();
  });

  it('do not follow a redirect, time out on a slow receiver, wait out one that is down, and give up in the end', async () => {
    const { db } = await twoEvents();
    reset('redirect');
    await deliverDueWebhooks(db, target());
    expect((await rows(db))[0]).toMatchObject({ last_status: 301, last_error: 'answered 301', delivered_at: null });
    expect(receiver.acted).toEqual([]);

    reset('slow');
    await deliverDueWebhooks(db, target({ timeoutMs: 200 }), later(31_000));
    expect((await rows(db))[0]).toMatchObject({ last_status: null, last_error: 'no answer within 200 ms' });

    server.closeAllConnections();
    const closed = http.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = target({ url: `http://127.0.0.1:${port}/down` });
    let when = Date.now() + 120_000;
    for (let attempt = 3; attempt <= maxWebhookAttempts; attempt++) {
      await deliverDueWebhooks(db, down, new Date(when));
      when += 3_600_000;
    }
    const [given] = await rows(db);
    expect(given).toMatchObject({ attempts: maxWebhookAttempts, last_error: 'ECONNREFUSED' });
    expect(given!.failed_at).not.toBeNull();
    expect((await deliverDueWebhooks(db, down, new Date(when + 86_400_000))).due).toBe(0);

    // An operator sends it again once the receiver is back.
    reset('ok');
    expect(await resendWebhook(db, given!.id)).toBe(true);
    expect(await resendWebhook(db, 999)).toBe(false);
    expect(await deliverDueWebhooks(db, target())).toMatchObject({ due: 1, delivered: 1 });
    await db.destroy();
  });
});

describe('the service', () => {
  it('tells the back end of a request received through the form, in the background', async () => {
    reset('ok');
    const { db } = await sqliteDatabase();
    const app = await createApiServer({
      db,
      config: { ...readConfig({}), webhookUrl: target().url, webhookSecrets: [secret], outboxIntervalMs: 50 },
      logger: false,
    });
    const response = await app.inject({
      method: 'POST',
      url: '/api/delete-account',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Ann Lee', email: 'ann@example.com', reason: 'r' }),
    });
    expect(response.statusCode).toBe(202);
    await expect.poll(() => receiver.acted.map((event) => event.type)).toEqual(['received']);
    expect(receiver.acted[0]!.request).toMatchObject({ email: 'ann@example.com', name: 'Ann Lee', status: 'received' });
    await app.close();
    await db.destroy();
  });
});

describe('the receiver’s check the operations guide shows', () => {
  it('accepts a genuine delivery and refuses a tampered, a foreign or an old one', async () => {
    const readme = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    const snippet = readme.match(/```ts\n(import \{ createHmac[\s\S]*?)```/)?.[1];
    expect(snippet).toBeDefined();
    const module = join(mkdtempSync(join(tmpdir(), 'readme-')), 'receiver.mjs');
    writeFileSync(
      module,
      `${ts.transpileModule(snippet!, { compilerOptions: { target: 99, module: 99 } }).outputText}
export { isGenuine };`,
    );
    const { isGenuine } = (await import(module)) as {
      isGenuine: (body: string, header: string, secret: string, now?: number) => boolean;
    };
    const body = '{"id":"1"}';
    const header = signatureFor(body, [secret, nextSecret], Math.floor(Date.now() / 1000));
    expect(isGenuine(body, header, secret)).toBe(true);
    expect(isGenuine(body, header, nextSecret)).toBe(true);
    expect(isGenuine('{"id":"2"}', header, secret)).toBe(false);
    expect(isGenuine(body, header, 'c'.repeat(64))).toBe(false);
    expect(isGenuine(body, header, secret, Date.now() + 6 * 60_000)).toBe(false);
    expect(isGenuine(body, 't=1,v1=zz', secret)).toBe(false);
  });
});

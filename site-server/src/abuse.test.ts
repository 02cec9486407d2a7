import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase, readConfig, type Db } from 'api';
import { createSiteServer } from './server.ts';

/** The composed server on a real port, with a real SQLite file, and a secret just outside the served folders. */
const root = mkdtempSync(join(tmpdir(), 'site-abuse-'));
const secret = 'SECRET-OUTSIDE-THE-SITE';
let app: FastifyInstance;
let db: Db;
let port: number;
const accepted: string[] = [];

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

interface Answer {
  status: number;
  body: string;
}

/** One raw HTTP request: the path is sent exactly as written (no normalising of `..`), nothing is retried. */
function send(options: http.RequestOptions & { body?: string | Buffer }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, agent: false, ...options }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

const json = (body: string) => ({
  method: 'POST',
  path: '/api/delete-account',
  headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  body,
});

let sequence = 0;
async function validRequest(): Promise<Answer> {
  const email = `abuse-${++sequence}@example.com`;
  const answer = await send(json(JSON.stringify({ name: 'Ann Lee', email, reason: 'Testing under attack.' })));
  if (answer.status === 202) accepted.push(email);
  return answer;
}

/** Raw bytes on a socket, for what no well-behaved client sends; resolves with what came back and when. */
function rawExchange(bytes: string, waitMs = 1_500): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.write(bytes);
    setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs);
  });
}

const statusOf = (raw: string) => Number(raw.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);

beforeAll(async () => {
  writeFile(join(root, 'secret.txt'), secret);
  writeFile(join(root, 'shell', 'secret.txt'), secret);
  writeFile(join(root, 'shell/dist/index.html'), '<!doctype html><title>shell</title><div id="root"></div>');
  writeFile(join(root, 'shell/dist/assets/index-abc123.js'), 'console.log("shell");');
  writeFile(join(root, 'legal/dist/remoteEntry.js'), 'export const legal = 1;');
  const config = {
    ...readConfig({ DATA_DIR: join(root, 'data'), RATE_LIMIT_PER_IP: '100000' }),
    requestTimeoutMs: 1_000,
  };
  db = await openMigratedDatabase(config);
  app = await createSiteServer({ root, api: { db, config } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});

afterAll(async () => {
  await app.close();
  await db.destroy();
});

describe('the site server under abuse', () => {
  it('refuses oversized bodies with 413, whether sent or only announced', async () => {
    const huge = JSON.stringify({ name: 'x', email: 'a@example.com', reason: 'y'.repeat(1_000_000) });
    expect((await send(json(huge))).status).toBe(413);
    const announced = await rawExchange(
      'POST /api/delete-account HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n{',
    );
    expect(statusOf(announced)).toBe(413);
    expect((await validRequest()).status).toBe(202);
  });

  it('cuts off a body that trickles in, while other clients are served at once', async () => {
    const slow = new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(answer));
      socket.write(
        'POST /api/delete-account HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n',
      );
      const drip = setInterval(() => (socket.writable ? socket.write('{') : clearInterval(drip)), 200);
      socket.on('close', () => clearInterval(drip));
    });
    // Served while the trickle is still held open (it ends at the request timeout, 1 s here): no wait behind it.
    const first = await Promise.race([validRequest(), slow.then(() => 'the trickle ended first')]);
    expect(first).toMatchObject({ status: 202 });
    expect(statusOf(await slow)).toBe(408);
  });

  it('keeps answering while hundreds of connections sit idle or half-open', async () => {
    const sockets: Socket[] = [];
    for (let i = 0; i < 300; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      if (i % 2) socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
      sockets.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answers = await Promise.all(Array.from({ length: 20 }, () => validRequest()));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(202));
    expect((await send({ path: '/api/health' })).status).toBe(200);
    for (const socket of sockets) socket.destroy();
  });

  it('answers 431 to header bombs, huge or many', async () => {
    const huge = await rawExchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Bomb: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(statusOf(huge)).toBe(431);
    const many = Array.from({ length: 3_000 }, (_, i) => `X-H${i}: ${'b'.repeat(10)}`).join('\r\n');
    expect(statusOf(await rawExchange(`GET / HTTP/1.1\r\nHost: x\r\n${many}\r\n\r\n`))).toBe(431);
    expect((await send({ path: '/api/health' })).status).toBe(200);
  });

  it('answers 4xx to JSON bombs and stores nothing from them', async () => {
    const before = accepted.length;
    const bombs = [
      `{"name":${'['.repeat(3_000)}${']'.repeat(3_000)},"email":"a@example.com","reason":"r"}`,
      JSON.stringify(Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, i]))),
      '{"name":"a","email":"a@example.com","reason":"r","name":"b","__proto__":{"admin":true}}',
      `{"name":"${'\\u0000'.repeat(1_000)}","email":"a@example.com","reason":"r"}`,
      '{"name":"a","email":"a@example.com","reason":"r"'.padEnd(4_000, ' '),
      '1e999999',
    ];
    for (const bomb of bombs) {
      const answer = await send(json(bomb));
      expect(answer.status, bomb.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(answer.status, bomb.slice(0, 40)).toBeLessThan(500);
      expect(JSON.parse(answer.body)).toHaveProperty('error');
    }
    expect(accepted.length).toBe(before);
  });

  it('never serves a file outside the site through path traversal', async () => {
    const attempts = [
      '/../secret.txt',
      '/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2e%2e/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/remotes/legal/../../secret.txt',
      '/remotes/legal/%2e%2e/%2e%2e/secret.txt',
      '/remotes/legal/..%5c..%5csecret.txt',
      '/remotes/legal/..%00/secret.txt',
      '/%252e%252e/secret.txt',
      '//secret.txt',
      '/remotes/../secret.txt',
    ];
    for (const path of attempts) {
      const answer = await send({ path });
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.body, path).not.toContain(secret);
    }
  });

  it('confuses no method: only POST stores, overrides are ignored, nothing answers 5xx', async () => {
    const before = accepted.length;
    const { count: rowsBefore } = await db
      .selectFrom('deletion_requests')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    const body = JSON.stringify({ name: 'Ann Lee', email: 'methods@example.com', reason: 'r' });
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE']) {
      const answer = await send({ ...json(body), method });
      expect(answer.status, method).toBeGreaterThanOrEqual(400);
      expect(answer.status, method).toBeLessThan(500);
    }
    for (const path of ['/', '/privacy', '/remotes.json', '/assets/index-abc123.js', '/remotes/legal/remoteEntry.js']) {
      const answer = await send({ ...json(body), path });
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.status, path).toBeLessThan(500);
    }
    const overridden = await send({
      ...json(body),
      path: '/api/health',
      headers: { ...json(body).headers, 'x-http-method-override': 'GET' },
    });
    expect(overridden.status).toBe(404);
    const { count: rowsAfter } = await db
      .selectFrom('deletion_requests')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(rowsAfter)).toBe(Number(rowsBefore));
    expect(accepted.length).toBe(before);
  });

  it('never writes a crafted Host header into a page, robots.txt or the sitemap', async () => {
    const crafted = 'evil.example"><meta http-equiv="refresh" content="0;url=https://evil.example">';
    for (const path of ['/', '/privacy', '/robots.txt', '/sitemap.xml']) {
      for (const host of [crafted, 'evil.example', 'localhost.evil.example:80']) {
        const answer = await app.inject({ url: path, headers: { host } });
        expect(answer.statusCode, `${path} for ${host}`).toBe(421);
        expect(answer.body).not.toContain('evil');
      }
    }
    // A host this server is meant to answer for names it, and caches are told that the answer depends on it.
    const page = await app.inject({ url: '/privacy', headers: { host: '127.0.0.1:4173' } });
    expect(page.body).toContain('<link rel="canonical" href="http://127.0.0.1:4173/privacy"');
    expect(page.headers.vary).toMatch(/Host/);
  });

  it('names only PUBLIC_SITE_URL when it is set, whatever the Host header says', async () => {
    const configured = await createSiteServer({ root, siteUrl: 'https://gifts.example/' });
    for (const host of ['evil.example', '127.0.0.1:4173']) {
      const page = await configured.inject({ url: '/privacy', headers: { host } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<link rel="canonical" href="https://gifts.example/privacy"');
      expect(page.body).not.toContain(host);
      expect(page.headers.vary).not.toMatch(/Host/);
      const robots = await configured.inject({ url: '/robots.txt', headers: { host } });
      expect(robots.body).toContain('Sitemap: https://gifts.example/sitemap.xml');
    }
    await configured.close();
    await expect(createSiteServer({ root, siteUrl: 'https://gifts.example"><script>' })).rejects.toThrow(
      /PUBLIC_SITE_URL/,
    );
  });

  it('lost nothing: every request that got a 202 during the attacks is stored, and the service is ready', async () => {
    expect(accepted.length).toBeGreaterThan(20);
    const stored = await db.selectFrom('deletion_requests').select('email').execute();
    const emails = new Set(stored.map((row) => row.email));
    expect(accepted.filter((email) => !emails.has(email))).toEqual([]);
    expect((await send({ path: '/api/health' })).status).toBe(200);
  });
});

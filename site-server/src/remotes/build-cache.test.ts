import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCache, RefusedBuild } from './build-cache.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const manifest = '{"exposes":[]}';
const page = `export default ${JSON.stringify('x'.repeat(20_000))};`;
/** What the release recorded for the version: the real files' hashes. */
const recorded = { 'mf-manifest.json': sha256(manifest), 'ssr/vendor-page.js': sha256(page) };

const servers: { close: () => void }[] = [];
afterEach(() => servers.splice(0).forEach((server) => server.close()));

/** A CDN whose answer for the server bundle `answer` decides; the manifest it sends as released. */
async function hostileCdn(answer: (request: IncomingMessage, response: ServerResponse) => void, host = '127.0.0.1') {
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    if (request.url!.endsWith('/mf-manifest.json')) return response.writeHead(200).end(manifest);
    answer(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const closing = () => {
    server.closeAllConnections();
    server.close();
  };
  servers.push({ close: closing });
  return { url: `http://${host}:${(server.address() as AddressInfo).port}/`, requests: () => requests };
}

function cacheFor(baseUrl: string) {
  const dir = mkdtempSync(join(tmpdir(), 'site-cache-'));
  const log = { info: vi.fn(), warn: vi.fn(), error: vi.fn() } as unknown as FastifyBaseLogger;
  const cache = buildCache({ dir, baseUrl, maxBytes: 10 * 1024 * 1024, log });
  return { cache, dir, ensure: () => cache.ensure('vendor', 'v1', async () => recorded, []) };
}

describe('a build fetched from the CDN', () => {
  it('is refused as it streams when the CDN sends far more than a file may weigh, without holding it in memory', async () => {
    let sent = 0;
    const cdn = await hostileCdn((_request, response) => {
      // 400 MB for a 20 KB file, in chunks and without a length, as fast as the socket takes them.
      response.writeHead(200);
      const chunk = Buffer.alloc(1024 * 1024, 120);
      const more = () => {
        while (sent < 400 * 1024 * 1024) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      more();
    });
    const { ensure, dir } = cacheFor(cdn.url);
    const before = process.memoryUsage().rss;
    const refusal = await ensure().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RefusedBuild);
    expect((refusal as Error).message).toMatch(/^ssr\/vendor-page\.js: larger than the \d+ bytes allowed/);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    expect(sent).toBeLessThan(100 * 1024 * 1024);
    // Nothing half-fetched is left, and nothing is served from it.
    expect(readdirSync(join(dir, 'vendor'))).toEqual([]);
  });

  it('is refused when the CDN redirects to another origin', async () => {
    const elsewhere = await hostileCdn((_request, response) => response.writeHead(200).end(page), '127.0.0.2');
    const cdn = await hostileCdn((request, response) =>
      response.writeHead(302, { location: `${elsewhere.url.slice(0, -1)}${request.url}` }).end(),
    );
    const { ensure } = cacheFor(cdn.url);
    await expect(ensure()).rejects.toThrow(
      `ssr/vendor-page.js: the CDN redirected it to ${elsewhere.url.slice(0, -1)}: only ${cdn.url.slice(0, -1)} is trusted`,
    );
    expect(elsewhere.requests()).toBe(0);
  });

  it('stops at once when the server stops, however slow the CDN', async () => {
    const cdn = await hostileCdn((_request, response) => {
      response.writeHead(200);
      response.write('export default "'); // and nothing more, ever
    });
    const { cache, ensure } = cacheFor(cdn.url);
    const pending = ensure().catch((error: unknown) => error);
    await vi.waitFor(() => expect(cdn.requests()).toBe(2));
    const stopped = Date.now();
    cache.close();
    expect(await pending).toBeInstanceOf(RefusedBuild);
    // A download gives up after a minute by itself: ended well before, it was the close that ended it.
    expect(Date.now() - stopped).toBeLessThan(20_000);
  });

  it('is not asked for again at every read once refused, but after a while that doubles', async () => {
    const cdn = await hostileCdn((_request, response) => response.writeHead(200).end('tampered'));
    const { ensure } = cacheFor(cdn.url);
    await expect(ensure()).rejects.toThrow('ssr/vendor-page.js: its SHA-256 is');
    const asked = cdn.requests();
    await expect(ensure()).rejects.toThrow('ssr/vendor-page.js: its SHA-256 is');
    expect(cdn.requests()).toBe(asked);
  });

  it('is taken within 30 s of the CDN’s return, however long the CDN was broken', async () => {
    // Broken: it sends other bytes than the release's (a half-synced origin), which backs off.
    let broken = true;
    const cdn = await hostileCdn((_request, response) => response.writeHead(200).end(broken ? 'half' : page));
    const { ensure } = cacheFor(cdn.url);
    // The releases are read every 10 s; the clock is the test's.
    let now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    const read = () =>
      ensure().then(
        () => true,
        () => false,
      );
    for (let seconds = 0; seconds < 1_000; seconds += 10, now += 10_000) expect(await read()).toBe(false);
    broken = false;
    const back = now;
    while (!(await read())) now += 10_000;
    clock.mockRestore();
    expect(now - back).toBeLessThanOrEqual(30_000);
  });

  it('holds what the server renders with: the server bundles and the stylesheets its pages carry, not the scripts', async () => {
    const css = 'main h1{color:red}';
    const files: Record<string, string> = {
      'ssr/vendor-page.js': page,
      'assets/vendor-page.css': css,
      'assets/vendor-page.js': 'export {}',
      'assets/vendor-page.css.br': 'compressed',
    };
    const cdn = await hostileCdn((request, response) => {
      const body = files[request.url!.replace(/^\/vendor\/v1\//, '')];
      return body === undefined ? response.writeHead(404).end() : response.writeHead(200).end(body);
    });
    const { cache, dir } = cacheFor(cdn.url);
    const listed = {
      ...recorded,
      ...Object.fromEntries(Object.entries(files).map(([path, body]) => [path, sha256(body)])),
    };
    await cache.ensure('vendor', 'v1', async () => listed, []);
    const onDisk = readdirSync(join(dir, 'vendor', 'v1'), { recursive: true })
      .map(String)
      .sort();
    expect(onDisk).toEqual(['assets', 'assets/vendor-page.css', 'mf-manifest.json', 'ssr', 'ssr/vendor-page.js']);
  });
});

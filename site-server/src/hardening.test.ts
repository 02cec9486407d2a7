import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteServer } from './server.ts';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

/** The heap in use once the garbage is collected: what a server keeps, not what it has not freed yet. */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const keptHeap = () => {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
};

describe('what the site server keeps and says, whatever addresses and headers it is sent', () => {
  const root = mkdtempSync(join(tmpdir(), 'site-hardening-'));
  let app: FastifyInstance;
  let origin: string;

  beforeAll(async () => {
    // As long as the shell's real page (3 KB: its head's links, styles and scripts).
    const head = `<link rel="modulepreload" href="/assets/chunk.js">`.repeat(60);
    writeFile(join(root, 'shell/dist/index.html'), `<!doctype html><title>shell</title>${head}<div id="root"></div>`);
    writeFile(join(root, 'legal/dist/remoteEntry.js'), 'export const legal = 1;');
    // Share-location built, but no server build to render with: its pages are the shell's HTML, named per address.
    writeFile(join(root, 'share-location/dist/remoteEntry.js'), 'export const shareLocation = 1;');
    app = await createSiteServer({ root, trustProxy: '10.0.0.1' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  afterAll(() => app.close());

  // Over HTTP: Fastify's `inject` keeps each of its requests in memory by itself.
  it('keeps nothing per invented share-link address: 5,000 of them leave the heap where it was', async () => {
    const ask = async (from: number, count: number) => {
      for (let n = from; n < from + count; n++) {
        const response = await fetch(`${origin}/share-location/gift_${n}_${'x'.repeat(40)}`);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      }
    };
    await ask(0, 500);
    const before = keptHeap();
    await ask(500, 5_000);
    const grown = keptHeap() - before;
    // Kept per address, the shell page was 3.5 KB each (17 MB here); kept per route, nothing grows.
    expect(grown, `${Math.round(grown / 1024)} KiB kept`).toBeLessThan(3 * 1024 * 1024);
  }, 120_000);

  it('still names each share link in its own page', async () => {
    const token = `gift_${'a'.repeat(43)}`;
    const page = await app.inject({ url: `/share-location/${token}` });
    expect(page.body).toContain(`/share-location/${token}"`);
    expect(page.body).toContain('<title>Share your delivery location');
  });

  it('answers a file-like address under a page’s pattern with the not-found page and a page’s headers', async () => {
    for (const url of ['/share-location/app.js', '/share-location/x/style.css', '/share-location/bundle.js.map']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toMatch(/^text\/html/);
      expect(response.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['permissions-policy'], url).toContain('geolocation=()');
      expect(response.headers['cross-origin-opener-policy'], url).toBe('same-origin');
    }
    // A file that is one keeps a file's few headers.
    const script = await app.inject({ url: '/remotes/legal/remoteEntry.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-security-policy']).toBeUndefined();
  });

  it('sends HSTS over plain HTTP only when the hop that says HTTPS is a proxy it trusts', async () => {
    const page = (remoteAddress: string, proto?: string) =>
      app.inject({ url: '/privacy', remoteAddress, headers: proto ? { 'x-forwarded-proto': proto } : {} });
    expect((await page('203.0.113.9', 'https')).headers['strict-transport-security']).toBeUndefined();
    expect((await page('10.0.0.1', 'http')).headers['strict-transport-security']).toBeUndefined();
    expect((await page('10.0.0.1', 'http, https')).headers['strict-transport-security']).toContain('max-age=');
    expect((await page('10.0.0.1')).headers['strict-transport-security']).toBeUndefined();
  });
});

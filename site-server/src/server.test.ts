import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loggerOptions } from 'api';
import { createSiteServer } from './server.ts';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

describe('site server', () => {
  const root = mkdtempSync(join(tmpdir(), 'site-'));
  let app: FastifyInstance;

  beforeAll(async () => {
    writeFile(join(root, 'shell/dist/index.html'), '<!doctype html><title>shell</title><div id="root"></div>');
    writeFile(join(root, 'shell/dist/assets/index-abc123.js'), 'console.log("shell");'.repeat(200));
    writeFile(join(root, 'legal/dist/remoteEntry.js'), 'export const legal = 1;');
    writeFile(join(root, 'legal/dist/assets/page-def456.js'), 'export default 1;');
    app = await createSiteServer({ root });
  });
  afterAll(() => app.close());

  it('serves the shell page on every route of a built remote; 503 to be asked again, kept nowhere, for the others', async () => {
    for (const url of ['/privacy', '/terms?ref=mail']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toContain('text/html');
      expect(response.body).toContain('<div id="root">');
    }
    // Only the legal remote is built here: a page without its part is not the page.
    for (const url of ['/', '/business', '/share-location/abc123']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(503);
      expect(response.headers, url).toMatchObject({ 'retry-after': '10', 'cache-control': 'no-store' });
      expect(response.headers['content-type'], url).toContain('text/html');
    }
  });

  it('answers 404 with the shell page for an unknown path, so the not-found page shows', async () => {
    const response = await app.inject({ url: '/unknown/page' });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('<div id="root">');
  });

  it('sends another spelling of a page’s address to the page, with its query and a share link’s token as written', async () => {
    const upper = await app.inject({ url: '/PRIVACY?ref=mail' });
    expect(upper.statusCode).toBe(301);
    expect(upper.headers.location).toBe('/privacy?ref=mail');
    expect((await app.inject({ url: '/Share-Location/AbC_123' })).headers.location).toBe('/share-location/AbC_123');
    expect((await app.inject({ url: '/privacy/' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/PRIVACY-policy' })).statusCode).toBe(404);
  });

  it('never serves a deployed build’s file through a symbolic link, even one published before links were refused', async () => {
    const deployed = mkdtempSync(join(tmpdir(), 'site-links-'));
    const secret = join(deployed, 'secret.txt');
    writeFile(secret, 'root:x:0:0');
    writeFile(join(deployed, 'vendor/v1/remoteEntry.js'), 'export const vendor = 1;');
    writeFile(join(deployed, 'vendor/v1/assets/page.js'), 'export default 1;');
    symlinkSync(secret, join(deployed, 'vendor/v1/passwd.txt'));
    symlinkSync(join(deployed), join(deployed, 'vendor/v1/up'));
    symlinkSync(secret, join(deployed, 'vendor/v1/assets/page.js.br'));
    const server = await createSiteServer({ root, remotesDir: deployed });
    try {
      expect((await server.inject({ url: '/remotes/vendor/v1/remoteEntry.js' })).statusCode).toBe(200);
      for (const url of ['/remotes/vendor/v1/passwd.txt', '/remotes/vendor/v1/up/secret.txt']) {
        const response = await server.inject({ url });
        expect(response.statusCode, url).not.toBe(200);
        expect(response.body, url).not.toContain('root:x');
      }
      // A Brotli copy that is a link is not sent in place of the file.
      const page = await server.inject({
        url: '/remotes/vendor/v1/assets/page.js',
        headers: { 'accept-encoding': 'br' },
      });
      expect(page.body).not.toContain('root:x');
    } finally {
      await server.close();
      rmSync(deployed, { recursive: true, force: true });
    }
  });

  it('allows geolocation on share links only', async () => {
    const policy = async (url: string) => (await app.inject({ url })).headers['permissions-policy'];
    expect(await policy('/share-location/AbC_123')).toContain('geolocation=(self)');
    expect(await policy('/privacy')).toContain('geolocation=()');
  });

  it('answers a failure on its side with the site’s error page: the status and a reference, no message or path', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'site-broken-'));
    writeFile(join(broken, 'shell/dist/index.html'), '<!doctype html><html><head></head><body></body></html>');
    const server = await createSiteServer({ root: broken });
    rmSync(join(broken, 'shell/dist/index.html'));
    // Seen once the folder's watch reports it.
    const response = await vi.waitFor(async () => {
      const answer = await server.inject({ url: '/privacy' });
      expect(answer.statusCode).toBe(500);
      return answer;
    });
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('Something went wrong on our side');
    expect(response.body).toContain(`<code>${response.headers['x-request-id']}</code>`);
    for (const leak of [broken, 'ENOENT', 'index.html', ' at ']) expect(response.body).not.toContain(leak);
    await server.close();
  });

  it('keeps pages and API answers to this origin and out of frames; remote builds may be loaded by another origin', async () => {
    for (const url of ['/privacy', '/remotes.json', '/api/anything']) {
      const response = await app.inject({ url });
      expect(response.headers['cross-origin-resource-policy'], url).toBe('same-origin');
      expect(response.headers['x-frame-options'], url).toBe('DENY');
    }
    const remote = await app.inject({ url: '/remotes/legal/remoteEntry.js' });
    expect(remote.statusCode).toBe(200);
    expect(remote.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('sends a script only the headers a script needs, and a page or an SVG every header', async () => {
    const script = await app.inject({ url: '/remotes/legal/remoteEntry.js' });
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(script.headers['x-request-id']).toBeDefined();
    for (const name of ['content-security-policy', 'permissions-policy', 'x-frame-options', 'referrer-policy']) {
      expect(script.headers[name], name).toBeUndefined();
    }
    const headerBytes = (response: { rawPayload: Buffer; headers: Record<string, unknown> }) =>
      Object.entries(response.headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 0);
    expect(headerBytes(script)).toBeLessThan(600);
    for (const url of ['/privacy', '/not-found.svg']) {
      const response = await app.inject({ url });
      expect(response.headers['content-security-policy'], url).toContain("default-src 'self'");
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['permissions-policy'], url).toContain('geolocation=()');
    }
  });

  it('logs a share link’s address and a preview link without their tokens, and no health check or scrape', async () => {
    const lines: string[] = [];
    const logged = await createSiteServer({
      root,
      logger: { ...(loggerOptions('info') as object), stream: { write: (line: string) => lines.push(line) } },
    });
    const token = 'gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7';
    await logged.inject({ url: `/share-location/${token}?from=app` });
    await logged.inject({ url: `/__preview?token=${token}.signature&x=1` });
    // A balancer's health checks and Prometheus's scrapes, every few seconds: not in the log at info.
    for (let check = 0; check < 10; check++) {
      expect((await logged.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await logged.inject({ url: '/metrics' })).statusCode).toBe(200);
    }
    const requests = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request completed');
    expect(requests.map((line) => line.url)).toEqual([
      '/share-location/[token]?from=app',
      '/__preview?token=[token]&x=1',
    ]);
    // One line per request, with what an operator looks for: method, client, status (no build of share-location
    // here: 503), time.
    expect(requests[0]).toMatchObject({ method: 'GET', ip: '127.0.0.1', status: 503, ms: expect.any(Number) });
    expect(requests[0].reqId).toMatch(/./);
    expect(lines.join('\n')).not.toContain(token);
    await logged.close();
  });

  it('answers a plain 404 for missing files and API paths', async () => {
    for (const url of ['/assets/missing.js', '/api/anything', '/remotes/legal/missing.js']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toContain('application/json');
    }
  });

  it('lists the built remotes in a manifest that is never cached', async () => {
    const response = await app.inject({ url: '/remotes.json' });
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.json()).toEqual({
      legal: expect.stringMatching(/^\/remotes\/legal\/remoteEntry\.js\?v=[\w-]{10}$/),
    });
  });

  it('caches hashed assets for good and revalidates remote entries and pages', async () => {
    expect((await app.inject({ url: '/assets/index-abc123.js' })).headers['cache-control']).toContain('immutable');
    expect((await app.inject({ url: '/remotes/legal/assets/page-def456.js' })).headers['cache-control']).toContain(
      'immutable',
    );
    expect((await app.inject({ url: '/remotes/legal/remoteEntry.js' })).headers['cache-control']).toBe('no-cache');
    expect((await app.inject({ url: '/privacy' })).headers['cache-control']).toBe('no-cache');
  });

  it('compresses responses for clients that accept it', async () => {
    const response = await app.inject({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers['content-encoding']).toBe('gzip');
  });

  it('serves the new shell page after the shell is rebuilt, without a restart', async () => {
    const indexPath = join(root, 'shell/dist/index.html');
    writeFileSync(indexPath, '<!doctype html><title>shell</title><div id="root"></div><p>shell v2</p>');
    const later = new Date(Date.now() + 5000);
    utimesSync(indexPath, later, later);
    await vi.waitFor(async () => expect((await app.inject({ url: '/terms' })).body).toContain('shell v2'));
  });

  it('serves a prerendered page only while the manifest names the remote build it was rendered with', async () => {
    const entry = (await app.inject({ url: '/remotes.json' })).json().legal as string;
    writeFile(
      join(root, 'shell/dist-pages/pages.json'),
      JSON.stringify({ '/privacy': { file: 'privacy.html', status: 200, remote: 'legal', entry } }),
    );
    writeFile(
      join(root, 'shell/dist-pages/privacy.html'),
      '<!doctype html><link rel="canonical" href="%SITE_URL%/privacy" /><div id="root">PRERENDERED</div>',
    );
    const fresh = await app.inject({ url: '/privacy' });
    expect(fresh.body).toContain('PRERENDERED');
    expect(fresh.body).toContain('href="http://localhost:80/privacy"');

    // The legal remote is rebuilt: its entry has a new version, and the old HTML must not be served.
    const entryFile = join(root, 'legal/dist/remoteEntry.js');
    writeFileSync(entryFile, 'export const legal = 2;');
    const later = new Date(Date.now() + 10_000);
    utimesSync(entryFile, later, later);
    await vi.waitFor(async () => {
      const stale = await app.inject({ url: '/privacy' });
      expect(stale.statusCode).toBe(200);
      expect(stale.body).not.toContain('PRERENDERED');
      expect(stale.body).toContain('<title>Privacy Policy | Giftwell</title>');
    });
  });

  it('serves robots.txt and a sitemap of the public pages', async () => {
    expect((await app.inject({ url: '/robots.txt' })).body).toContain('Sitemap: http://localhost:80/sitemap.xml');
    const sitemap = (await app.inject({ url: '/sitemap.xml' })).body;
    expect(sitemap).toContain('<loc>http://localhost:80/privacy</loc>');
    expect(sitemap).not.toContain('share-location');
  });

  it('serves a deployed manifest file, and the new one as soon as the file changes', async () => {
    const manifestFile = join(root, 'remotes.json');
    writeFileSync(manifestFile, JSON.stringify({ legal: '/remotes/legal/v1/remoteEntry.js' }));
    const deployed = await createSiteServer({ root, manifestFile, remotesDir: join(root, 'deployed') });
    expect((await deployed.inject({ url: '/remotes.json' })).json()).toEqual({
      legal: '/remotes/legal/v1/remoteEntry.js',
    });
    writeFileSync(manifestFile, JSON.stringify({ legal: '/remotes/legal/v2/remoteEntry.js' }));
    await vi.waitFor(async () =>
      expect((await deployed.inject({ url: '/remotes.json' })).json()).toEqual({
        legal: '/remotes/legal/v2/remoteEntry.js',
      }),
    );
    await deployed.close();
  });

  it('holds a page asked for before the releases were first read until they are, and says 503 on /healthz meanwhile', async () => {
    let read: () => void = () => {};
    const firstRead = new Promise<void>((resolve) => (read = resolve));
    let readYet = false;
    const following = await createSiteServer({
      root,
      remotesDir: join(root, 'deployed'),
      releases: () => ({
        read: async () => (readYet ? { legal: '/remotes/legal/v1/remoteEntry.js' } : {}),
        status: () => ({ ok: readYet, hasManifest: readYet }),
        ready: () => firstRead,
      }),
    });
    try {
      expect((await following.inject({ url: '/healthz' })).statusCode).toBe(503);
      let answered = false;
      const page = following.inject({ url: '/privacy' }).then((response) => ((answered = true), response));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBe(false);
      readYet = true;
      read();
      expect((await page).statusCode).toBe(200);
      expect((await following.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await following.close();
    }
  });
});

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEntry, siteRoleOf } from './overrides.ts';
import { createSiteServer } from '../server.ts';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

const local = 'http://localhost:5175/remoteEntry.js';

describe('local remote overrides (pnpm dev:remote --against)', () => {
  const root = mkdtempSync(join(tmpdir(), 'override-site-'));
  const remotesDir = join(root, 'deployed');
  const manifestFile = join(root, 'remotes.json');
  const live = '/remotes/vendor/20261120.090000000-11111111/remoteEntry.js';
  const logs: { msg: string; remote?: string }[] = [];
  let development: FastifyInstance;
  let production: FastifyInstance;

  beforeAll(async () => {
    writeFile(
      join(root, 'shell/dist/index.html'),
      '<!doctype html><html><head><title>shell</title></head><body><div id="root"></div></body></html>',
    );
    writeFileSync(manifestFile, JSON.stringify({ vendor: live }));
    const stream = { write: (line: string) => logs.push(JSON.parse(line)) };
    development = await createSiteServer({ root, remotesDir, manifestFile, siteRole: 'development' });
    production = await createSiteServer({ root, remotesDir, manifestFile, siteRole: 'production', logger: { stream } });
  });
  afterAll(() => Promise.all([development.close(), production.close()]));

  const manifestIn = (html: string) =>
    JSON.parse(/<script type="application\/json" id="remotes-manifest"[^>]*>([^<]*)</.exec(html)![1]!) as {
      vendor: string;
    };
  const link = `/__override?remote=vendor&entry=${encodeURIComponent(local)}`;

  it('in development, composes that browser’s pages with the remote from its machine, rendered in the browser', async () => {
    const started = await development.inject({ url: link });
    expect(started.statusCode).toBe(303);
    expect(started.headers.location).toBe('/vendor');
    expect(String(started.headers['set-cookie'])).toBe(`override-vendor=${local}; Path=/; HttpOnly; SameSite=Lax`);

    const page = await development.inject({ url: '/vendor', cookies: { 'override-vendor': local } });
    expect(manifestIn(page.body).vendor).toBe(local);
    expect(page.body).toContain('Local: vendor from localhost:5175 · <a href="/__override/end?to=%2Fvendor">end</a>');
    expect(page.headers['cache-control']).toBe('private, no-store');
    // The shell takes remote code from the origins the page names: the local one among them.
    expect(page.body).toMatch(/id="remotes-manifest" data-remote-origins="[^"]*http:\/\/localhost:5175/);
    // The page may load scripts, styles and images from that origin, and from no other.
    const policy = String(page.headers['content-security-policy']);
    for (const directive of ['script-src', 'style-src', 'img-src', 'connect-src']) {
      expect(policy).toMatch(new RegExp(`${directive} [^;]*http://localhost:5175`));
    }
    expect((await development.inject({ url: '/remotes.json', cookies: { 'override-vendor': local } })).json()).toEqual({
      vendor: local,
    });

    const visitor = await development.inject({ url: '/vendor' });
    expect(manifestIn(visitor.body).vendor).toBe(live);
    expect(String(visitor.headers['content-security-policy'])).not.toContain('localhost:5175');
  });

  it('in production, ignores and logs the link and the cookie: the live build is served', async () => {
    const started = await production.inject({ url: link });
    expect(started.statusCode).toBe(303);
    expect(started.headers['set-cookie']).toBeUndefined();
    const page = await production.inject({ url: '/vendor', cookies: { 'override-vendor': local } });
    expect(manifestIn(page.body).vendor).toBe(live);
    expect(page.body).not.toContain('Local:');
    expect(String(page.headers['content-security-policy'])).not.toContain('localhost:5175');
    expect(String(page.headers['set-cookie'])).toMatch(/^override-vendor=; Max-Age=0/);
    // The link and the cookie, from one client for one remote: said once that minute, with the reason.
    expect(logs.filter((line) => line.msg === 'Remote override ignored')).toEqual([
      expect.objectContaining({ remote: 'vendor', reason: 'production' }),
    ]);
  });

  it('in production, logs an override cookie by its remote and a reason, never its value, once per client and minute', async () => {
    await production.listen({ port: 0, host: '127.0.0.1' });
    const site = `http://127.0.0.1:${(production.server.address() as { port: number }).port}`;
    const long = `http://localhost:5175/${'x'.repeat(3000)}/remoteEntry.js`;
    const cookie = ['consumer', 'business', 'legal', 'account']
      .map((folder) => `override-${folder}=${long}`)
      .join('; ');
    logs.length = 0;
    for (let i = 0; i < 5; i++) {
      const page = await fetch(`${site}/vendor`, { headers: { cookie } });
      expect(page.status).toBe(200);
      await page.arrayBuffer();
    }
    const ignored = logs.filter((line) => line.msg === 'Remote override ignored');
    expect(ignored.map((line) => line.remote).sort()).toEqual(['account', 'business', 'consumer', 'legal']);
    expect(JSON.stringify(logs)).not.toContain('xxxxxxxx');
  });

  it('takes an entry on this machine only, and a remote that exists', async () => {
    for (const entry of [
      'https://evil.example/remoteEntry.js',
      'http://localhost.evil.example:5175/remoteEntry.js',
      'http://user:pass@localhost:5175/remoteEntry.js',
      'http://localhost:5175/other.js',
      'javascript:alert(1)//remoteEntry.js',
    ]) {
      expect(localEntry(entry), entry).toBeUndefined();
      const refused = await development.inject({ url: `/__override?remote=vendor&entry=${encodeURIComponent(entry)}` });
      expect(refused.statusCode, entry).toBe(400);
    }
    expect((await development.inject({ url: `/__override?remote=toString&entry=${local}` })).statusCode).toBe(400);
    const forged = await development.inject({
      url: '/vendor',
      cookies: { 'override-vendor': 'https://evil.example/remoteEntry.js' },
    });
    expect(manifestIn(forged.body).vendor).toBe(live);
    expect(localEntry('http://127.0.0.1:5175/remoteEntry.js')).toBe('http://127.0.0.1:5175/remoteEntry.js');
  });

  it('is production unless SITE_ROLE says development or preview', () => {
    expect(siteRoleOf({ NODE_ENV: 'production' })).toBe('production');
    expect(siteRoleOf({ NODE_ENV: 'production', SITE_ROLE: 'preview' })).toBe('preview');
    expect(siteRoleOf({})).toBe('production');
    expect(siteRoleOf({ SITE_ROLE: 'development' })).toBe('development');
    expect(() => siteRoleOf({ SITE_ROLE: 'staging' })).toThrow('SITE_ROLE must be production, preview or development');
  });
});

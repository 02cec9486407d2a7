import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPreview } from '../ledger/preview-links.ts';
import { createSiteServer } from '../server.ts';

const secret = 'a-preview-secret-of-at-least-32-characters';
const hour = 3_600_000;

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

describe('a site server with previews', () => {
  const root = mkdtempSync(join(tmpdir(), 'preview-site-'));
  const remotesDir = join(root, 'deployed');
  const manifestFile = join(root, 'remotes.json');
  const live = '20261120.090000000-11111111';
  const candidate = '20261124.101500123-3f9a0c1e';
  const logs: { msg: string; reason?: string }[] = [];
  let app: FastifyInstance;
  let withoutSecret: FastifyInstance;

  beforeAll(async () => {
    writeFile(
      join(root, 'shell/dist/index.html'),
      '<!doctype html><html><head><title>shell</title></head><body><div id="root"></div></body></html>',
    );
    for (const version of [live, candidate])
      writeFile(join(remotesDir, 'legal', version, 'remoteEntry.js'), 'export {};');
    writeFileSync(manifestFile, JSON.stringify({ legal: `/remotes/legal/${live}/remoteEntry.js` }));
    const stream = { write: (line: string) => logs.push(JSON.parse(line)) };
    app = await createSiteServer({ root, remotesDir, manifestFile, previewSecret: secret, logger: { stream } });
    withoutSecret = await createSiteServer({ root, remotesDir, manifestFile });
  });
  afterAll(() => Promise.all([app.close(), withoutSecret.close()]));

  const token = (version = candidate, expires = Date.now() + hour) =>
    signPreview({ remote: 'legal', version, expires }, secret);
  const manifestIn = (html: string) =>
    JSON.parse(/<script type="application\/json" id="remotes-manifest"[^>]*>([^<]*)</.exec(html)![1]!) as {
      legal: string;
    };

  it('turns a valid link into a cookie for that browser and goes to the remote’s first page', async () => {
    const response = await app.inject({ url: `/__preview?token=${token()}` });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/privacy');
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/^preview-legal=[\w.-]+; Max-Age=3\d{3}; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('composes pages with the previewed version for that browser alone, with a bar, never cached', async () => {
    const previewed = await app.inject({ url: '/privacy', cookies: { 'preview-legal': token() } });
    expect(manifestIn(previewed.body).legal).toBe(`/remotes/legal/${candidate}/remoteEntry.js`);
    expect(previewed.body).toContain(
      `Preview: legal ${candidate} · <a href="/__preview/end?to=%2Fprivacy">end preview</a>`,
    );
    expect(previewed.headers['cache-control']).toBe('private, no-store');
    expect(previewed.headers.vary).toContain('Cookie');
    const manifest = await app.inject({ url: '/remotes.json', cookies: { 'preview-legal': token() } });
    expect(manifest.json().legal).toBe(`/remotes/legal/${candidate}/remoteEntry.js`);
    expect(manifest.headers['cache-control']).toBe('private, no-store');

    const visitor = await app.inject({ url: '/privacy' });
    expect(manifestIn(visitor.body).legal).toBe(`/remotes/legal/${live}/remoteEntry.js`);
    expect(visitor.body).not.toContain('Preview:');
    expect(visitor.headers['cache-control']).toBe('no-cache');
  });

  it('ignores, logs and clears a forged, expired or unknown-version cookie: the live build is served', async () => {
    const [payload] = token().split('.');
    const cases = {
      forged: `${payload}.${'A'.repeat(43)}`,
      expired: token(candidate, Date.now() - 1000),
      'unknown version': token('20261124.999999999-99999999'),
    };
    for (const [reason, value] of Object.entries(cases)) {
      logs.length = 0;
      const response = await app.inject({ url: '/privacy', cookies: { 'preview-legal': value } });
      expect(manifestIn(response.body).legal, reason).toBe(`/remotes/legal/${live}/remoteEntry.js`);
      expect(response.body).not.toContain('Preview:');
      expect(logs.find((line) => line.msg === 'Preview cookie ignored')?.reason).toBe(reason);
      expect(String(response.headers['set-cookie'])).toMatch(/^preview-legal=; Max-Age=0;/);
    }
    // A valid grant for legal, sent in the cookie of another remote, previews nothing.
    logs.length = 0;
    const misplaced = await app.inject({ url: '/privacy', cookies: { 'preview-vendor': token() } });
    expect(manifestIn(misplaced.body).legal).toBe(`/remotes/legal/${live}/remoteEntry.js`);
    expect(misplaced.body).not.toContain('Preview:');
    expect(logs.find((line) => line.msg === 'Preview cookie ignored')?.reason).toBe('another remote');
    // A link that grants nothing says so, and sets nothing.
    const link = await app.inject({ url: `/__preview?token=${cases.forged}` });
    expect(link.statusCode).toBe(403);
    expect(link.body).toContain('This preview link is not valid');
    expect(link.headers['set-cookie']).toBeUndefined();
    expect((await app.inject({ url: `/__preview?token=${cases.expired}` })).statusCode).toBe(410);
  });

  it('ends every preview and comes back to the page, never to another site', async () => {
    const end = await app.inject({ url: '/__preview/end?to=%2Fterms', cookies: { 'preview-legal': token() } });
    expect(end.statusCode).toBe(303);
    expect(end.headers.location).toBe('/terms');
    expect(String(end.headers['set-cookie'])).toContain('preview-legal=; Max-Age=0');
    for (const to of ['//evil.example', 'https://evil.example', '/\\evil.example']) {
      const away = await app.inject({ url: `/__preview/end?to=${encodeURIComponent(to)}` });
      expect(away.headers.location, to).toBe('/');
    }
  });

  it('is off without a secret: no link is honoured, no cookie read', async () => {
    expect((await withoutSecret.inject({ url: `/__preview?token=${token()}` })).statusCode).toBe(404);
    const page = await withoutSecret.inject({ url: '/privacy', cookies: { 'preview-legal': token() } });
    expect(manifestIn(page.body).legal).toBe(`/remotes/legal/${live}/remoteEntry.js`);
    expect(page.body).not.toContain('Preview:');
    await expect(createSiteServer({ root, previewSecret: 'too short' })).rejects.toThrow(
      'PREVIEW_SECRET must be at least 32 characters',
    );
  });
});

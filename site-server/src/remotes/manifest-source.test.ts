import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSiteServer } from '../server.ts';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

const good = { legal: '/remotes/legal/20261120.090000000-11111111/remoteEntry.js' };

/** The manifest a page was composed with, as it carries it. */
const manifestIn = (html: string) =>
  JSON.parse(/<script type="application\/json" id="remotes-manifest"[^>]*>([^<]*)</.exec(html)![1]!) as object;

describe('a release manifest that turns bad', () => {
  const root = mkdtempSync(join(tmpdir(), 'manifest-site-'));
  const manifestFile = join(root, 'remotes.json');
  const logs: { msg: string; problem?: string }[] = [];
  let app: FastifyInstance;

  beforeAll(async () => {
    writeFile(
      join(root, 'shell/dist/index.html'),
      '<!doctype html><html><head><title>shell</title></head><body><div id="root"></div></body></html>',
    );
    writeFileSync(manifestFile, JSON.stringify(good));
    const stream = { write: (line: string) => logs.push(JSON.parse(line)) };
    app = await createSiteServer({ root, manifestFile, logger: { stream } });
  });
  afterAll(() => app.close());

  const setManifest = (write: () => void) => {
    rmSync(manifestFile, { recursive: true, force: true });
    write();
  };

  const corrupt: Record<string, [() => void, string]> = {
    truncated: [() => writeFileSync(manifestFile, '{"consumer":'), 'the manifest is not valid JSON'],
    empty: [() => writeFileSync(manifestFile, ''), 'the manifest is not valid JSON'],
    missing: [() => undefined, 'the manifest file is missing'],
    directory: [() => mkdirSync(manifestFile), 'the manifest is not a file'],
    null: [() => writeFileSync(manifestFile, 'null'), 'the manifest must be object'],
    '20 MB': [
      () => writeFileSync(manifestFile, JSON.stringify({ ...good, extra: 'x'.repeat(20 * 1024 * 1024) })),
      'the manifest is larger than 64 KiB',
    ],
    'unknown key': [
      () => writeFileSync(manifestFile, JSON.stringify({ ...good, tracker: '/remotes/x/remoteEntry.js' })),
      'the manifest names an unknown remote "tracker"',
    ],
    'foreign scheme': [
      () => writeFileSync(manifestFile, JSON.stringify({ legal: 'javascript:alert(1)//remoteEntry.js' })),
      'the manifest legal must match pattern',
    ],
  };

  for (const [shape, [write, problem]] of Object.entries(corrupt)) {
    it(`${shape}: pages stay up with the last good manifest, the health check says degraded and why`, async () => {
      setManifest(() => writeFileSync(manifestFile, JSON.stringify(good)));
      // The server sees a change when the folder's watch reports it, a moment after the write.
      await vi.waitFor(async () =>
        expect((await app.inject({ url: '/healthz' })).json()).toEqual({
          status: 'ok',
          live: { legal: '20261120.090000000-11111111' },
        }),
      );
      logs.length = 0;
      setManifest(write);
      await vi.waitFor(async () => expect((await app.inject({ url: '/healthz' })).json().status).toBe('degraded'));
      for (const url of ['/privacy', '/terms']) {
        const page = await app.inject({ url });
        expect(page.statusCode, url).toBe(200);
        expect(manifestIn(page.body), url).toEqual(good);
        expect(page.body, url).not.toContain(root);
      }
      // The remotes the last good manifest has no build of stay unpublished, as they were.
      for (const url of ['/', '/vendor', '/share-location/AbC_123456789012']) {
        expect((await app.inject({ url })).statusCode, url).toBe(503);
      }
      const manifest = await app.inject({ url: '/remotes.json' });
      expect(manifest.statusCode).toBe(200);
      expect(manifest.json()).toEqual(good);
      const health = await app.inject({ url: '/healthz' });
      expect(health.statusCode).toBe(200);
      expect(health.json().status).toBe('degraded');
      expect(health.json().manifest).toContain(problem);
      // The versions it still serves, from the last good manifest.
      expect(health.json().live).toEqual({ legal: '20261120.090000000-11111111' });
      expect(health.body).not.toContain(root);
      // Logged once for the change, not once per request.
      expect(logs.filter((line) => line.msg.startsWith('The release manifest is unusable'))).toHaveLength(1);
    });
  }

  it('without any good manifest, pages answer 503 for a moment, kept by no cache; the health check fails', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'manifest-none-'));
    writeFile(
      join(fresh, 'shell/dist/index.html'),
      '<!doctype html><html><head></head><body><div id="root"></div></body></html>',
    );
    writeFileSync(join(fresh, 'remotes.json'), '{"legal":');
    const server = await createSiteServer({ root: fresh, manifestFile: join(fresh, 'remotes.json') });
    const page = await server.inject({ url: '/privacy' });
    expect(page.statusCode).toBe(503);
    expect(page.headers).toMatchObject({ 'retry-after': '10', 'cache-control': 'no-store' });
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).not.toContain('/remotes/');
    const health = await server.inject({ url: '/healthz' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toEqual({ status: 'degraded', manifest: 'the manifest is not valid JSON', live: {} });
    await server.close();
  });

  it('tells anyone whether it is ok; the versions and reasons only to this machine or with the health token', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'manifest-health-'));
    writeFile(join(fresh, 'shell/dist/index.html'), '<!doctype html><html><head></head><body></body></html>');
    writeFileSync(join(fresh, 'remotes.json'), '{"legal":');
    const server = await createSiteServer({
      root: fresh,
      manifestFile: join(fresh, 'remotes.json'),
      healthToken: 'health-token-for-the-balancer',
    });
    const from = (remoteAddress: string, authorization?: string) =>
      server.inject({ url: '/healthz', remoteAddress, headers: authorization ? { authorization } : {} });
    const outside = await from('203.0.113.9');
    expect(outside.statusCode).toBe(503);
    expect(outside.json()).toEqual({ status: 'degraded' });
    expect((await from('203.0.113.9', 'Bearer not-the-token')).json()).toEqual({ status: 'degraded' });
    expect((await from('203.0.113.9', 'Bearer health-token-for-the-balancer')).json()).toMatchObject({
      manifest: 'the manifest is not valid JSON',
      live: {},
    });
    expect((await from('::1')).json()).toMatchObject({ manifest: 'the manifest is not valid JSON' });
    await server.close();
  });
});

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPreview } from '../ledger/preview-links.ts';
import { rolloutsFile, writeRollout, type Rollout } from '../ledger/rollouts.ts';
import { createSiteServer } from '../server.ts';

const secret = 'a-preview-secret-of-at-least-32-characters';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

describe('a site server with a rollout under way', () => {
  const root = mkdtempSync(join(tmpdir(), 'rollout-site-'));
  const remotesDir = join(root, 'deployed');
  const manifestFile = join(root, 'remotes.json');
  const current = '20261120.090000000-11111111';
  const canary = '20261126.101500123-3f9a0c1e';
  const candidate = '20261126.111500123-4a4a4a4a';
  const entry = (version: string) => `/remotes/legal/${version}/remoteEntry.js`;
  const logs: { msg: string; page?: string }[] = [];
  let app: FastifyInstance;

  const rollout = (share: number): Rollout => ({
    remote: 'legal',
    version: canary,
    entry: entry(canary),
    current,
    stages: [share, 100],
    stage: 0,
    stageMinutes: 10,
    stageSince: new Date().toISOString(),
    pausedMs: 0,
    startedAt: new Date().toISOString(),
    startedBy: 'ops',
  });

  beforeAll(async () => {
    writeFile(
      join(root, 'shell/dist/index.html'),
      '<!doctype html><html><head><title>shell</title></head><body><div id="root"></div></body></html>',
    );
    for (const version of [current, canary, candidate]) {
      writeFile(join(remotesDir, 'legal', version, 'remoteEntry.js'), 'export {};');
    }
    writeFileSync(manifestFile, JSON.stringify({ legal: entry(current) }));
    await writeRollout(rolloutsFile(manifestFile), 'legal', rollout(5));
    const stream = { write: (line: string) => logs.push(JSON.parse(line)) };
    app = await createSiteServer({ root, remotesDir, manifestFile, previewSecret: secret, logger: { stream } });
  });
  afterAll(() => app.close());

  const manifestIn = (html: string) =>
    JSON.parse(/<script type="application\/json" id="remotes-manifest"[^>]*>([^<]*)</.exec(html)![1]!) as {
      legal: string;
    };
  const page = (url: string, bucket?: number, cookies: Record<string, string> = {}) =>
    app.inject({ url, cookies: { ...cookies, ...(bucket === undefined ? {} : { cohort: String(bucket) }) } });

  it('serves a first visit the current version and gives it a bucket for the next pages', async () => {
    const first = await page('/privacy');
    expect(manifestIn(first.body).legal).toBe(entry(current));
    expect(String(first.headers['set-cookie'])).toMatch(
      /(^|,)cohort=\d{1,2}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax/,
    );
  });

  it('serves each cohort its own version of every page and of the manifest, varying by cookie', async () => {
    for (const url of ['/privacy', '/vendor', '/no-such-page']) {
      const [inCanary, inCurrent] = [await page(url, 4), await page(url, 5)];
      expect(manifestIn(inCanary.body).legal).toBe(entry(canary));
      expect(manifestIn(inCurrent.body).legal).toBe(entry(current));
      expect(inCanary.headers.etag).not.toBe(inCurrent.headers.etag);
      for (const answer of [inCanary, inCurrent]) {
        expect(answer.headers.vary).toContain('Cookie');
        expect(answer.headers['set-cookie'] ?? '').not.toMatch(/(^|,)cohort=/);
      }
    }
    const manifest = (bucket: number) => app.inject({ url: '/remotes.json', cookies: { cohort: String(bucket) } });
    expect((await manifest(0)).json().legal).toBe(entry(canary));
    expect((await manifest(99)).json().legal).toBe(entry(current));
    expect((await manifest(0)).headers.vary).toContain('Cookie');
    // A cohort's 304 is for its own page: the other cohort's ETag does not match.
    const etag = String((await page('/privacy', 4)).headers.etag);
    expect((await page('/privacy', 4, {})).statusCode).toBe(200);
    const again = await app.inject({ url: '/privacy', cookies: { cohort: '80' }, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(200);
    expect(manifestIn(again.body).legal).toBe(entry(current));
  });

  it('keeps one page per cohort in memory: visitors of both cohorts in turn cost no new compression', async () => {
    await page('/terms', 1);
    await page('/terms', 50);
    const before = logs.filter((line) => line.msg === 'Page kept in memory, compressed' && line.page === '/terms');
    for (let i = 0; i < 10; i++) await page('/terms', i % 2 ? 1 : 50);
    const after = logs.filter((line) => line.msg === 'Page kept in memory, compressed' && line.page === '/terms');
    expect(after).toHaveLength(before.length);
  });

  it('lets a preview or a local override win over the cohort for the browser that holds it', async () => {
    const token = signPreview({ remote: 'legal', version: candidate, expires: Date.now() + 3_600_000 }, secret);
    const previewed = await page('/privacy', 1, { 'preview-legal': token });
    expect(manifestIn(previewed.body).legal).toBe(entry(candidate));
    const developer = await createSiteServer({ root, remotesDir, manifestFile, siteRole: 'development' });
    try {
      const local = 'http://localhost:5175/remoteEntry.js';
      const overridden = await developer.inject({ url: '/privacy', cookies: { cohort: '1', 'override-legal': local } });
      expect(manifestIn(overridden.body).legal).toBe(local);
      const inCanary = await developer.inject({ url: '/privacy', cookies: { cohort: '1' } });
      expect(manifestIn(inCanary.body).legal).toBe(entry(canary));
    } finally {
      await developer.close();
    }
  });

  it('follows the rollout file: a larger share adds visitors, the end of the rollout puts everyone back', async () => {
    await writeRollout(rolloutsFile(manifestFile), 'legal', rollout(25));
    await expect.poll(async () => manifestIn((await page('/privacy', 20)).body).legal).toBe(entry(canary));
    expect(manifestIn((await page('/privacy', 4)).body).legal).toBe(entry(canary));
    expect(manifestIn((await page('/privacy', 25)).body).legal).toBe(entry(current));
    await writeRollout(rolloutsFile(manifestFile), 'legal', undefined);
    await expect.poll(async () => manifestIn((await page('/privacy', 4)).body).legal).toBe(entry(current));
    // No rollout: no bucket is drawn.
    expect(String((await page('/privacy')).headers['set-cookie'] ?? '')).not.toMatch(/(^|,)cohort=/);
  });
});

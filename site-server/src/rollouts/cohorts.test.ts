import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPreview } from '../ledger/preview-links.ts';
import { rolloutsFile, testIdOf, writeRollout, type Rollout } from '../ledger/rollouts.ts';
import { newVisitorId, placeIn } from './cohorts.ts';
import { createSiteServer } from '../server.ts';

const secret = 'a-preview-secret-of-at-least-32-characters';
const browser = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

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

  const startedAt = new Date().toISOString();
  const rollout = (share: number): Rollout => ({
    remote: 'legal',
    version: canary,
    entry: entry(canary),
    current,
    stages: [share, 100],
    stage: 0,
    stageMinutes: 10,
    stageSince: startedAt,
    pausedMs: 0,
    startedAt,
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
  const page = (url: string, visitor?: string, cookies: Record<string, string> = {}) =>
    app.inject({
      url,
      headers: { 'user-agent': browser },
      cookies: { ...cookies, ...(visitor === undefined ? {} : { cohort: visitor }) },
    });
  /** A visitor's id whose place in the rollout at `share` is in [low, high). */
  const visitorAt = (low: number, high: number) => {
    for (;;) {
      const id = newVisitorId();
      const place = placeIn(testIdOf(rollout(5)), id);
      if (place >= low && place < high) return id;
    }
  };
  const [inFive, alsoInFive, atTwenty, atFifty, atEighty] = [
    visitorAt(0, 5),
    visitorAt(0, 5),
    visitorAt(5, 25),
    visitorAt(25, 100),
    visitorAt(25, 100),
  ];

  it('serves a first visit its arm at once and gives it an id for the next pages', async () => {
    const first = await page('/privacy');
    const cookie = /(?:^|,)cohort=([A-Za-z0-9_-]{22}); Max-Age=7776000; Path=\/; HttpOnly; SameSite=Lax/.exec(
      String(first.headers['set-cookie']),
    );
    expect(cookie).not.toBeNull();
    const arm = placeIn(testIdOf(rollout(5)), cookie![1]!) < 5 ? canary : current;
    expect(manifestIn(first.body).legal).toBe(entry(arm));
    expect(manifestIn((await page('/privacy', cookie![1])).body).legal).toBe(entry(arm));
  });

  it('serves each cohort its own version of every page and of the manifest, varying by cookie', async () => {
    for (const url of ['/privacy', '/terms', '/no-such-page']) {
      const [inCanary, inCurrent] = [await page(url, inFive), await page(url, atTwenty)];
      expect(manifestIn(inCanary.body).legal).toBe(entry(canary));
      expect(manifestIn(inCurrent.body).legal).toBe(entry(current));
      expect(inCanary.headers.etag).not.toBe(inCurrent.headers.etag);
      for (const answer of [inCanary, inCurrent]) {
        expect(answer.headers.vary).toContain('Cookie');
        expect(answer.headers['set-cookie'] ?? '').not.toMatch(/(^|,)cohort=/);
      }
    }
    const manifest = (visitor: string) =>
      app.inject({ url: '/remotes.json', headers: { 'user-agent': browser }, cookies: { cohort: visitor } });
    expect((await manifest(inFive)).json().legal).toBe(entry(canary));
    expect((await manifest(atEighty)).json().legal).toBe(entry(current));
    expect((await manifest(inFive)).headers.vary).toContain('Cookie');
    // A cohort's 304 is for its own page: the other cohort's ETag does not match.
    const etag = String((await page('/privacy', inFive)).headers.etag);
    expect((await page('/privacy', inFive, {})).statusCode).toBe(200);
    const again = await app.inject({
      url: '/privacy',
      cookies: { cohort: atEighty },
      headers: { 'user-agent': browser, 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(200);
    expect(manifestIn(again.body).legal).toBe(entry(current));
  });

  it('keeps one page per cohort in memory: visitors of both cohorts in turn cost no new compression', async () => {
    await page('/terms', inFive);
    await page('/terms', atFifty);
    const before = logs.filter((line) => line.msg === 'Page kept in memory, compressed' && line.page === '/terms');
    for (let i = 0; i < 10; i++) await page('/terms', i % 2 ? alsoInFive : atFifty);
    const after = logs.filter((line) => line.msg === 'Page kept in memory, compressed' && line.page === '/terms');
    expect(after).toHaveLength(before.length);
  });

  it('lets a preview or a local override win over the cohort for the browser that holds it', async () => {
    const token = signPreview({ remote: 'legal', version: candidate, expires: Date.now() + 3_600_000 }, secret);
    const previewed = await page('/privacy', inFive, { 'preview-legal': token });
    expect(manifestIn(previewed.body).legal).toBe(entry(candidate));
    const developer = await createSiteServer({ root, remotesDir, manifestFile, siteRole: 'development' });
    try {
      const local = 'http://localhost:5175/remoteEntry.js';
      const overridden = await developer.inject({
        url: '/privacy',
        headers: { 'user-agent': browser },
        cookies: { cohort: inFive, 'override-legal': local },
      });
      expect(manifestIn(overridden.body).legal).toBe(local);
      const inCanary = await developer.inject({
        url: '/privacy',
        headers: { 'user-agent': browser },
        cookies: { cohort: inFive },
      });
      expect(manifestIn(inCanary.body).legal).toBe(entry(canary));
    } finally {
      await developer.close();
    }
  });

  it('follows the rollout file: a larger share adds visitors, the end of the rollout puts everyone back', async () => {
    await writeRollout(rolloutsFile(manifestFile), 'legal', rollout(25));
    await expect.poll(async () => manifestIn((await page('/privacy', atTwenty)).body).legal).toBe(entry(canary));
    expect(manifestIn((await page('/privacy', inFive)).body).legal).toBe(entry(canary));
    expect(manifestIn((await page('/privacy', atFifty)).body).legal).toBe(entry(current));
    await writeRollout(rolloutsFile(manifestFile), 'legal', undefined);
    await expect.poll(async () => manifestIn((await page('/privacy', inFive)).body).legal).toBe(entry(current));
    // No rollout: no id is drawn.
    expect(String((await page('/privacy')).headers['set-cookie'] ?? '')).not.toMatch(/(^|,)cohort=/);
  });
});

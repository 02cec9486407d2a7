import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rolloutsFile, writeRollout } from '../ledger/rollouts.ts';
import { createSiteServer } from '../server.ts';
import { siteEvents } from './events.ts';
import { ownerOf } from './site-metrics.ts';
import { valueOf, valuesOf } from 'api/test/scrape';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

describe('GET /metrics on the site server', () => {
  const root = mkdtempSync(join(tmpdir(), 'metrics-site-'));
  const remotesDir = join(root, 'deployed');
  const manifestFile = join(root, 'remotes.json');
  const current = '20261120.090000000-11111111';
  const canary = '20261126.101500123-3f9a0c1e';
  const entry = (version: string) => `/remotes/legal/${version}/remoteEntry.js`;
  let app: FastifyInstance;

  beforeAll(async () => {
    writeFile(
      join(root, 'shell/dist/index.html'),
      '<!doctype html><html><head><title>shell</title></head><body><div id="root"></div></body></html>',
    );
    for (const version of [current, canary])
      writeFile(join(remotesDir, 'legal', version, 'remoteEntry.js'), 'export {};');
    writeFileSync(manifestFile, JSON.stringify({ legal: entry(current) }));
    await writeRollout(rolloutsFile(manifestFile), 'legal', {
      remote: 'legal',
      version: canary,
      entry: entry(canary),
      current,
      stages: [25, 100],
      stage: 0,
      stageMinutes: 10,
      stageSince: new Date().toISOString(),
      pausedMs: 0,
      startedAt: new Date().toISOString(),
      startedBy: 'ops',
    });
    app = await createSiteServer({ root, remotesDir, manifestFile, metrics: { enabled: true, token: 'scrape-token' } });
  });
  afterAll(() => app.close());

  const scrape = async () => (await app.inject({ url: '/metrics' })).body;

  it('says which version of each remote is live and the rollout under way, with its stage and share', async () => {
    const text = await scrape();
    expect(valueOf(text, `site_live_version_info{remote="legal",version="${current}"}`)).toBe(1);
    expect(valueOf(text, `site_rollout_share_ratio{remote="legal",version="${canary}"}`)).toBe(0.25);
    expect(valueOf(text, `site_rollout_stage{remote="legal",version="${canary}"}`)).toBe(1);
    expect(valueOf(text, 'site_live_version_unavailable{remote="legal"}')).toBe(0);
    // Neither a watch nor PostgreSQL here: no series says they are late.
    expect(text).not.toContain('site_release_watch_last_look_timestamp_seconds');
    expect(text).not.toContain('site_releases_last_heard_timestamp_seconds{');
  });

  it('counts pages by remote, from memory or made on demand, and the 304s, under their route patterns', async () => {
    const first = await app.inject({ url: '/privacy' });
    expect(first.statusCode).toBe(200);
    // The same visitor again (its id from the first answer: a new one would be drawn into an arm afresh).
    const id = String(first.headers['set-cookie']).split(';')[0]!;
    const again = await app.inject({
      url: '/privacy',
      headers: { 'if-none-match': String(first.headers.etag), cookie: id },
    });
    expect(again.statusCode).toBe(304);
    await app.inject({ url: '/no-such-page-4711' });
    await app.inject({ url: `/remotes/legal/${current}/remoteEntry.js` });
    const text = await scrape();
    const counted = {
      'site_pages_total{remote="legal",source="memory",code="200"}': 1,
      'site_pages_total{remote="legal",source="memory",code="304"}': 1,
      'site_pages_total{remote="none",source="memory",code="404"}': 1,
      'http_requests_total{route="/privacy",remote="legal",method="GET",code="200"}': 1,
      'http_requests_total{route="/privacy",remote="legal",method="GET",code="304"}': 1,
      'http_requests_total{route="/remotes/*",remote="legal",method="GET",code="200"}': 1,
    };
    expect(valuesOf(text, Object.keys(counted))).toEqual(counted);
    // An invented address is never a label: it is a request that matched no page route.
    expect(text).not.toContain('no-such-page-4711');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.1",route="\/privacy",remote="legal"/);
  });

  it('counts what the release watch decided and when it last looked, and the builds fetched or refused', async () => {
    // Before any verdict, every remote's series is there at 0, so that an alert sees the first one as an increase.
    const before = await scrape();
    expect(valueOf(before, 'site_release_watch_verdicts_total{remote="legal",kind="aborted"}')).toBe(0);
    expect(valueOf(before, 'site_release_watch_verdicts_total{remote="vendor",kind="rolled_back"}')).toBe(0);
    siteEvents.verdict({ remote: 'vendor', kind: 'rolled_back' });
    siteEvents.look({ at: 1_800_000_000_000, intervalMs: 30_000 });
    siteEvents.build({ remote: 'vendor', outcome: 'refused', reason: 'checksum' });
    siteEvents.build({ remote: 'vendor', outcome: 'fetched' });
    const text = await scrape();
    expect(valueOf(text, 'site_release_watch_verdicts_total{remote="vendor",kind="rolled_back"}')).toBe(1);
    expect(valueOf(text, 'site_release_watch_last_look_timestamp_seconds')).toBe(1_800_000_000);
    expect(valueOf(text, 'site_release_watch_interval_seconds')).toBe(30);
    expect(valueOf(text, 'site_builds_refused_total{remote="vendor",reason="checksum"}')).toBe(1);
    expect(valueOf(text, 'site_builds_fetched_total{remote="vendor"}')).toBe(1);
  });

  it('says whether the arms of a rollout under way are the sizes of its split, and nothing of a remote without one', async () => {
    siteEvents.sampleRatio({ remote: 'legal', mismatch: true });
    siteEvents.sampleRatio({ remote: 'vendor', mismatch: true });
    let text = await scrape();
    expect(valueOf(text, 'site_rollout_sample_ratio_mismatch{remote="legal"}')).toBe(1);
    expect(text).not.toContain('site_rollout_sample_ratio_mismatch{remote="vendor"}');
    siteEvents.sampleRatio({ remote: 'legal', mismatch: false });
    text = await scrape();
    expect(valueOf(text, 'site_rollout_sample_ratio_mismatch{remote="legal"}')).toBe(0);
  });

  it('is 404 from elsewhere without the token, 200 with it', async () => {
    expect((await app.inject({ url: '/metrics', remoteAddress: '203.0.113.9' })).statusCode).toBe(404);
    const withToken = await app.inject({
      url: '/metrics',
      remoteAddress: '203.0.113.9',
      headers: { authorization: 'Bearer scrape-token' },
    });
    expect(withToken.statusCode).toBe(200);
  });
});

describe('the owner of a request', () => {
  it('is the remote of a page, of a build file, the API, the shell, or none', () => {
    expect(ownerOf('/vendor', '/vendor')).toBe('vendor');
    expect(ownerOf('/share-location/*', '/share-location/abc')).toBe('share-location');
    expect(ownerOf('/remotes/*', '/remotes/business/v1/a.js')).toBe('business');
    expect(ownerOf('/remotes/*', '/remotes/../etc')).toBe('none');
    expect(ownerOf('/api/delete-account', '/api/delete-account')).toBe('api');
    expect(ownerOf('/*', '/assets/shell.js')).toBe('shell');
    expect(ownerOf(undefined, '/x')).toBe('none');
  });
});

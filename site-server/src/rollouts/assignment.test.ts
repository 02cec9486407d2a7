import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRule } from 'api/commands';
import { openMigratedDatabase, readConfig, type Db } from 'api';
import { ticketOfTiming } from '@gift/contracts/field-data';
import { experimentCommand } from '../releases/experiment-cli.ts';
import { release, ReleaseError } from '../releases/release.ts';
import { stepRollout } from '../ledger/rollout-steps.ts';
import { browserAgent, legalWorkspace, listeningSite } from '../watch/test-road.ts';
import { vendorBeacon } from './test-experiment-road.ts';

/**
 * How a site server assigns visitors to rollouts and experiments, over HTTP as browsers meet it: a first page is
 * already its arm's, each test is drawn apart from the others, crawlers stay out; and the sample ratio check on the
 * arms' sizes, as `pnpm experiment` prints it and `ship` obeys it.
 */
describe('visitors in arms, over HTTP', { timeout: 120_000 }, () => {
  const { root, settings, writeFile } = legalWorkspace('assignment-', ['legal', 'vendor', 'business']);
  let db: Db;
  let app: FastifyInstance;
  let site = '';
  let builds = 0;

  /** A new build of `folder`, released live or, with `rollout`, as a rollout or an experiment of it. */
  async function releaseBuild(folder: 'legal' | 'vendor' | 'business', rollout?: { share: number; goal?: string }) {
    writeFile(join(root, `${folder}/dist/remoteEntry.js`), `export const build = ${++builds};`);
    const stages = rollout && { stages: [rollout.share, 100], stageMinutes: 24 * 60 };
    const experiment = rollout?.goal && { goal: rollout.goal, days: 14 };
    return (
      await release(settings, folder, {
        prebuilt: true,
        force: { reason: 'unit test' },
        ...(stages && { rollout: { ...stages, ...(experiment && { experiment }) } }),
      })
    ).to;
  }

  /** The remote's rollout or experiment ended, when one is under way. */
  const endTest = (folder: 'legal' | 'vendor') =>
    stepRollout(settings, folder, 'abort', { why: 'the next test' }).catch((error: unknown) => {
      if (!(error instanceof ReleaseError)) throw error;
    });

  /** A page as a browser asks for it (the visitor's id when it has one): the versions it names, its cookie, its ticket. */
  async function visit(path: string, visitor?: string, { agent = browserAgent, address = '10.0.0.1' } = {}) {
    const answer = await fetch(`${site}${path}`, {
      headers: {
        'user-agent': agent,
        'x-forwarded-for': address,
        ...(visitor && { cookie: `cohort=${visitor}` }),
      },
    });
    const html = await answer.text();
    const manifest = JSON.parse(/id="remotes-manifest"[^>]*>([^<]*)</.exec(html)![1]!) as Record<string, string>;
    const given = /(?:^|,)\s*cohort=([\w-]+)/.exec(answer.headers.getSetCookie().join(','))?.[1];
    return {
      versionOf: (folder: string) => new RegExp(`/${folder}/([^/]+)/`).exec(manifest[folder] ?? '')?.[1],
      visitor: given ?? visitor,
      given,
      ticket: ticketOfTiming(answer.headers.get('server-timing')),
    };
  }

  beforeAll(async () => {
    const config = { ...readConfig({ DATA_DIR: join(root, 'data'), TRUST_PROXY: '1' }), requestTimeoutMs: 5_000 };
    db = await openMigratedDatabase(config);
    for (const folder of ['legal', 'vendor', 'business'] as const) await releaseBuild(folder);
    ({ app, site } = await listeningSite(settings, db, config));
  });
  afterAll(async () => {
    await app.close();
    await db.destroy();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves first visits their arm on that first page: 35-65% of 400 see the new version at 50%, and keep it', async () => {
    const next = await releaseBuild('vendor', { share: 50, goal: 'portal-click' });
    await expect.poll(async () => (await visit('/vendor')).given).toBeDefined();
    let onNext = 0;
    for (let n = 0; n < 400; n++) {
      const first = await visit('/vendor');
      if (first.versionOf('vendor') === next) onNext += 1;
      if (n % 40 === 0)
        expect((await visit('/vendor', first.visitor)).versionOf('vendor')).toBe(first.versionOf('vendor'));
    }
    expect(onNext).toBeGreaterThanOrEqual(140);
    expect(onNext).toBeLessThanOrEqual(260);
  });

  it('draws two experiments at once apart: their arms agree for 35-65% of visitors, not all', async () => {
    await endTest('vendor');
    const vendorNext = await releaseBuild('vendor', { share: 50, goal: 'portal-click' });
    const businessNext = await releaseBuild('business', { share: 50, goal: 'store-click' });
    await expect
      .poll(async () => {
        const views = await Promise.all(Array.from({ length: 20 }, () => visit('/business')));
        return views.some((view) => view.versionOf('business') === businessNext);
      })
      .toBe(true);
    let agree = 0;
    for (let n = 0; n < 200; n++) {
      const first = await visit('/vendor');
      const second = await visit('/business', first.visitor);
      if ((first.versionOf('vendor') === vendorNext) === (second.versionOf('business') === businessNext)) agree += 1;
    }
    expect(agree).toBeGreaterThanOrEqual(70);
    expect(agree).toBeLessThanOrEqual(130);
  });

  it('draws each new rollout its canary afresh: two 5% canaries one after the other share about 5% of 5%', async () => {
    const first = await releaseBuild('legal', { share: 5 });
    await expect.poll(async () => (await visit('/privacy')).given).toBeDefined();
    const visitors: string[] = [];
    const inFirst = new Set<string>();
    for (let n = 0; n < 2000; n++) {
      const view = await visit('/privacy');
      visitors.push(view.visitor!);
      if (view.versionOf('legal') === first) inFirst.add(view.visitor!);
    }
    await endTest('legal');
    const second = await releaseBuild('legal', { share: 5 });
    await expect.poll(async () => (await visit('/privacy', visitors[0])).versionOf('legal')).not.toBe(first);
    let inSecond = 0;
    let inBoth = 0;
    for (const visitor of visitors) {
      if ((await visit('/privacy', visitor)).versionOf('legal') !== second) continue;
      inSecond += 1;
      if (inFirst.has(visitor)) inBoth += 1;
    }
    // About 100 in each; one bucket for every rollout would put the same 100 in both.
    for (const size of [inFirst.size, inSecond]) expect(size).toBeGreaterThanOrEqual(60);
    for (const size of [inFirst.size, inSecond]) expect(size).toBeLessThanOrEqual(140);
    expect(inBoth).toBeLessThanOrEqual(20);
    await endTest('legal');
  });

  it('reports arms whose sizes are not the split, and ship refuses: a new version whose beacons get lost', async () => {
    await endTest('vendor');
    const next = await releaseBuild('vendor', { share: 50, goal: 'portal-click' });
    await expect.poll(async () => (await visit('/vendor')).given).toBeDefined();
    /** A new visitor's view from network `n`, and its beacon unless `lost` says it is lost. */
    async function beaconedVisit(n: number, lost: (onNext: boolean) => boolean) {
      const address = `10.20.${n % 60}.${1 + Math.floor(n / 60)}`;
      const view = await visit('/vendor', undefined, { address });
      const version = view.versionOf('vendor')!;
      if (lost(version === next)) return;
      await vendorBeacon(site, address, { version, ticket: view.ticket });
    }
    const lines: string[] = [];
    const deps = {
      settings: async () => settings,
      fieldDataDb: async () => db,
      rule: defaultRule,
      printSwitch: () => {},
      log: (line: string) => lines.push(line),
    };
    const status = async () => {
      lines.length = 0;
      await experimentCommand('vendor', 'status', undefined, {}, deps);
      return lines.find((line) => line.includes('sample ratio:'));
    };
    // 300 visitors from 60 networks, every beacon arriving: the arms match.
    for (let n = 0; n < 300; n++) await beaconedVisit(n, () => false);
    expect(await status()).toMatch(/sample ratio: the arms match the split: \d+ of \d+ counted views/);
    // Then the new version's page loses its beacon (it breaks before the beacon goes), for 300 more visitors.
    for (let n = 300; n < 600; n++) await beaconedVisit(n, (onNext) => onNext);
    expect(await status()).toMatch(
      /sample ratio: MISMATCH: the arms are not the sizes the split says \(p < 0.001, valid at every look\): \d+ of \d+ counted views on the new version \([23]\d\.\d%, planned 50\.0%\)/,
    );
    expect(lines.at(-1)).toContain('ship is refused meanwhile');
    const shipped = experimentCommand('vendor', 'ship', undefined, {}, deps);
    await expect(shipped).rejects.toThrow(ReleaseError);
    await expect(shipped).rejects.toThrow(/^Not shipped: the arms are not the sizes the split says/);
  });

  it('keeps crawlers on the current versions, without an id and without a ticket', async () => {
    const manifest = JSON.parse(readFileSync(settings.manifestFile, 'utf8')) as Record<string, string>;
    const live = /\/business\/([^/]+)\//.exec(manifest.business!)![1];
    for (const agent of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'node',
    ]) {
      for (let n = 0; n < 20; n++) {
        const view = await visit('/business', undefined, { agent });
        expect([view.given, view.ticket, view.versionOf('business')]).toEqual([undefined, undefined, live]);
      }
    }
  });
});

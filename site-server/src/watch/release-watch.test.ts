import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from 'api';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { releases, rollback } from '../releases/release.ts';
import { deployedLegal } from './test-deployment.ts';
import { recordsOf, type ReleaseRecord } from '../ledger/records.ts';
import { watchedRelease, watchReleases } from './release-watch.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString();
const live = (version: string, how: 'promote' | 'rollback', minute: number): ReleaseRecord => ({
  remote: 'legal',
  version,
  event: 'live',
  how,
  who: 'ops',
  at: at(minute),
});

describe('the release under watch', () => {
  const now = new Date(at(20));

  it('is the last promote within the window, with the version live before it', () => {
    const records = [live('v1', 'promote', 0), live('v2', 'promote', 10)];
    expect(watchedRelease(records, now, 15)).toEqual({ version: 'v2', previous: 'v1', since: new Date(at(10)) });
    expect(watchedRelease(records, now, 9)).toBeUndefined();
  });

  it('is none after a rollback, and none without a version before it', () => {
    expect(
      watchedRelease([live('v1', 'promote', 0), live('v2', 'promote', 10), live('v1', 'rollback', 12)], now, 15),
    ).toBeUndefined();
    expect(watchedRelease([live('v1', 'promote', 10)], now, 15)).toBeUndefined();
  });
});

describe('watching releases', () => {
  let db: Db | undefined;
  afterEach(async () => db?.destroy());

  /** A deployed legal remote with two versions, the second promoted now; its field data. */
  async function deployed() {
    const deployment = await deployedLegal();
    db = deployment.db;
    return deployment;
  }

  const warnings = vi.fn();
  const log = { warn: warnings, error: vi.fn() } as unknown as FastifyBaseLogger;

  it('rolls a version that throws back once, records why, and queues the signed webhook', async () => {
    const { settings, first, second, view } = await deployed();
    // From 19 networks: the judge waits for 20.
    for (let i = 0; i < 19; i++) await view(second, 1);
    const watch = { settings, db: db!, log, minutes: 15, webhooks: true };
    expect(await watchReleases(watch)).toEqual([]);

    await view(second, 1);
    const [rolled] = await watchReleases(watch);
    expect(rolled).toMatchObject({ remote: 'legal', from: second, to: first });
    expect(JSON.parse(readFileSync(settings.manifestFile, 'utf8')).legal).toBe(
      `/remotes/legal/${first}/remoteEntry.js`,
    );
    expect(await releases(settings, 'legal')).toMatchObject([
      { version: first, live: true, verdict: expect.stringMatching(/^forced: unit test/) },
      {
        version: second,
        live: false,
        verdict: expect.stringMatching(
          /^forced: unit test \(.*\); rolled back by the release watch: worse \(no baseline: the version before has counted views from 0 networks, so the fixed limits apply\): errors 100\.0% of 20 views erred \(20, from 20 networks\): at least [\d.]+% at 99\.9%, above the fixed limit of 5\.0%/,
        ),
      },
    ]);
    expect(warnings).toHaveBeenCalledWith(
      expect.objectContaining({ remote: 'legal', from: second, to: first }),
      'release rolled back by the watch',
    );
    const [delivery] = await db!.selectFrom('webhook_deliveries').selectAll().execute();
    expect(JSON.parse(delivery!.payload)).toMatchObject({
      type: 'release.rolled_back',
      release: { remote: 'legal', from: second, to: first, reason: expect.stringMatching(/^worse \(no baseline/) },
    });

    // Once per release: more bad views change nothing now that the previous version is live.
    for (let i = 0; i < 60; i++) await view(second, 1);
    expect(await watchReleases(watch)).toEqual([]);
    expect(recordsOf(settings.manifestFile, 'legal').filter((r) => r.event === 'rolled-back')).toHaveLength(1);
  });

  it('leaves a release alone after the window, when off, or when the team rolled back themselves', async () => {
    const { settings, first, second, view } = await deployed();
    for (let i = 0; i < 60; i++) await view(second, 1);
    const watch = { settings, db: db!, log, minutes: 15, webhooks: false };
    const later = new Date(Date.now() + 16 * 60_000);
    expect(await watchReleases({ ...watch, now: () => later })).toEqual([]);
    await rollback(settings, 'legal');
    expect(await watchReleases(watch)).toEqual([]);
    expect(JSON.parse(readFileSync(settings.manifestFile, 'utf8')).legal).toContain(first);
    expect(await db!.selectFrom('webhook_deliveries').selectAll().execute()).toEqual([]);
    expect(second).not.toBe(first);
  });

  it('never rolls back to a version that is gone', async () => {
    const { settings, first, second, view } = await deployed();
    for (let i = 0; i < 60; i++) await view(second, 1);
    rmSync(join(settings.remotesDir, 'legal', first), { recursive: true });
    expect(await watchReleases({ settings, db: db!, log, minutes: 15, webhooks: true })).toEqual([]);
    expect(JSON.parse(readFileSync(settings.manifestFile, 'utf8')).legal).toContain(second);
  });
});

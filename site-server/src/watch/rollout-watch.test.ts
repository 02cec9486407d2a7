import { spawnSync } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from 'api';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { releases } from '../releases/release.ts';
import { ledgerOf } from '../ledger/switches.ts';
import { recordsOf } from '../ledger/records.ts';
import { stepRollout } from '../ledger/rollout-steps.ts';
import { rolloutLines } from '../releases/rollout-status.ts';
import { judgeRollout } from 'api';
import { watchRollouts } from './rollout-watch.ts';
import { judgedOver, rolloutProblem, rolloutsFile } from '../ledger/rollouts.ts';
import { deployedLegal } from './test-deployment.ts';
import { channels } from '../metrics/events.ts';

const inStages = { rollout: { stages: [5, 25, 100], stageMinutes: 10 } };
const log = { warn: vi.fn(), info: vi.fn(), error: vi.fn() } as unknown as FastifyBaseLogger;

// Hundreds of views stored one by one: seconds on a busy machine, so a generous timeout (a safety net, not a measure).
describe('the watch of a staged rollout', { timeout: 60_000 }, () => {
  let db: Db | undefined;
  afterEach(async () => db?.destroy());

  async function rolledOut() {
    const deployment = await deployedLegal(inStages);
    db = deployment.db;
    const rollout = (await ledgerOf(deployment.settings).rollouts()).legal!;
    const minutes = (count: number) => new Date(new Date(rollout.stageSince).getTime() + count * 60_000);
    const watch = { settings: deployment.settings, db, log, webhooks: true };
    const liveEntry = () => JSON.parse(readFileSync(deployment.settings.manifestFile, 'utf8')).legal as string;
    const webhooks = async () =>
      (await db!.selectFrom('webhook_deliveries').select('payload').orderBy('created_at').execute()).map(
        (row) => JSON.parse(row.payload) as { type: string; rollout: Record<string, unknown> },
      );
    return { ...deployment, rollout, minutes, watch, liveEntry, webhooks };
  }

  it('starts with the first share and leaves the manifest on the current version', async () => {
    const { first, second, rollout, liveEntry } = await rolledOut();
    expect(rollout).toMatchObject({ version: second, current: first, stages: [5, 25, 100], stage: 0 });
    expect(liveEntry()).toBe(`/remotes/legal/${first}/remoteEntry.js`);
  });

  it('aborts a canary whose views err once that has held 10 minutes, by its own cohort, once, with the figures and a webhook', async () => {
    const { settings, first, second, view, watch, minutes, liveEntry, webhooks, rollout } = await rolledOut();
    // The current version's visitors are fine; erring canary views from 19 networks (4 minutes in) are not enough.
    for (let i = 0; i < 100; i++) await view(first, 0);
    for (let i = 0; i < 19; i++) await view(second, 1, { at: minutes(4) });
    expect(await watchRollouts({ ...watch, now: () => minutes(6) })).toEqual([]);
    await view(second, 1, { at: minutes(4) });
    // Worse now; not yet for RELEASE_WATCH_CONFIRM_MINUTES (10): as the figures stood 10 minutes before (before the
    // stage, then before the erring views), it was not. The watch waits, and says why.
    for (const at of [6, 11]) {
      expect(await watchRollouts({ ...watch, now: () => minutes(at) })).toEqual([]);
      const judged = await judgeRollout(db!, judgedOver(rollout), undefined, () => minutes(at));
      expect(judged.decision).toMatchObject({
        verdict: 'wait',
        why: expect.stringMatching(/^worse .*; waiting for it to hold 10 minutes/),
      });
    }
    const [step] = await watchRollouts({ ...watch, now: () => minutes(15) });
    expect(step).toMatchObject({ remote: 'legal', done: 'aborted' });
    expect(await ledgerOf(settings).rollouts()).toEqual({});
    expect(liveEntry()).toBe(`/remotes/legal/${first}/remoteEntry.js`);
    expect(recordsOf(settings.manifestFile, 'legal').at(-1)).toMatchObject({
      version: second,
      event: 'rollout-aborted',
      share: 5,
      by: 'watch',
      why: expect.stringMatching(
        /^worse on the current version: errors 100\.0% of 20 views erred \(20, from 20 networks\) against 0\.0% \(0 of 100\): at least \+[\d.]+ pp at 99\.9%/,
      ),
    });
    expect(await webhooks()).toEqual([
      expect.objectContaining({
        type: 'rollout.aborted',
        rollout: expect.objectContaining({ remote: 'legal', version: second, current: first, share: 5 }),
      }),
    ]);
    expect((await releases(settings, 'legal'))[1]!.verdict).toMatch(/rollout aborted at 5% by the release watch/);
    expect(await watchRollouts({ ...watch, now: () => minutes(16) })).toEqual([]);
  });

  it('advances a canary no worse than the current version when the stage is due, then goes live for everyone', async () => {
    const { settings, first, second, view, watch, minutes, liveEntry, webhooks } = await rolledOut();
    // 200 clean views from 200 networks on each side: shown not worse, once the stage has run its time.
    for (let i = 0; i < 200; i++) await view(first, 0);
    for (let i = 0; i < 200; i++) await view(second, 0);
    expect(await watchRollouts({ ...watch, now: () => minutes(9) })).toEqual([]);
    const [advanced] = await watchRollouts({ ...watch, now: () => minutes(10) });
    expect(advanced).toMatchObject({ done: 'advanced', after: { stage: 1, stageSince: minutes(10).toISOString() } });

    // The next stage is judged by its own hours: the views before it do not count.
    expect(await watchRollouts({ ...watch, now: () => minutes(21) })).toEqual([]);
    for (let i = 0; i < 200; i++) await view(first, 0, { at: minutes(12) });
    for (let i = 0; i < 200; i++) await view(second, 0, { at: minutes(12) });
    const [completed] = await watchRollouts({ ...watch, now: () => minutes(21) });
    expect(completed).toMatchObject({ done: 'completed' });
    expect(liveEntry()).toBe(`/remotes/legal/${second}/remoteEntry.js`);
    expect(await ledgerOf(settings).rollouts()).toEqual({});
    expect((await webhooks()).map((event) => [event.type, event.rollout.share])).toEqual([
      ['rollout.advanced', 25],
      ['rollout.completed', 100],
    ]);
    expect(recordsOf(settings.manifestFile, 'legal').at(-1)).toMatchObject({ event: 'live', how: 'rollout' });
  });

  it('holds a canary whose arms are not the sizes of the split, however good its figures, and says so', async () => {
    const { settings, first, second, view, watch, minutes, rollout, db: data } = await rolledOut();
    const events: unknown[] = [];
    const listener = (message: unknown) => events.push(message);
    subscribe(channels.sampleRatio.name, listener);
    // New visitors from 200 networks, the canary at 5%: 40 of them on the canary where 10 would be expected (a cache
    // that keeps the canary's page for others, say). Both versions' views are clean.
    for (let i = 0; i < 160; i++) await view(first, 0, { assigned: true });
    for (let i = 0; i < 40; i++) await view(second, 0, { assigned: true });
    for (let i = 0; i < 200; i++) await view(first, 0);
    for (let i = 0; i < 200; i++) await view(second, 0);
    expect(await watchRollouts({ ...watch, now: () => minutes(10) })).toEqual([]);
    expect((await ledgerOf(settings).rollouts()).legal).toMatchObject({ stage: 0 });
    expect(events.at(-1)).toEqual({ remote: 'legal', mismatch: true });
    expect(log.warn).toHaveBeenCalledWith(
      expect.objectContaining({ remote: 'legal', why: expect.stringMatching(/^MISMATCH: /) }),
      'sample ratio mismatch: the rollout is held (not advanced) until someone finds why',
    );
    const judged = await judgeRollout(data, judgedOver(rollout), undefined, () => minutes(10));
    expect(rolloutLines(rollout, minutes(10), judged).join('\n')).toMatch(
      /sample ratio: MISMATCH: .*: 40 of 200 counted views on the new version \(20\.0%, planned 5\.0%\)[\s\S]*next: held at 5%/,
    );
    // By hand: refused without a reason.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/release.mjs', ...args], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: {
          PATH: process.env.PATH,
          REMOTES_DIR: settings.remotesDir,
          REMOTES_MANIFEST: settings.manifestFile,
          DATA_DIR: join(settings.root, 'data'),
        },
        encoding: 'utf8',
      });
    const refused = cli('rollout', 'legal', 'advance');
    expect([refused.status, refused.stderr]).toEqual([
      1,
      expect.stringMatching(/^Not advanced: the arms are not the sizes/),
    ]);
    expect((await ledgerOf(settings).rollouts()).legal).toMatchObject({ stage: 0 });
    unsubscribe(channels.sampleRatio.name, listener);
  });

  it('aborts a canary whose LCP is slower than the current version’s by more than the margin over the same hours', async () => {
    const { first, second, view, watch, minutes } = await rolledOut();
    // Before the stage: slow views of the current version that must not lower its baseline.
    for (let i = 0; i < 50; i++) await view(first, 0, { at: minutes(-30), lcp: 9000 });
    for (let i = 0; i < 50; i++) await view(first, 0, { lcp: 1000 + i });
    for (let i = 0; i < 50; i++) await view(second, 0, { lcp: 1600 + i });
    expect(await watchRollouts({ ...watch, now: () => minutes(1) })).toEqual([]);
    const [step] = await watchRollouts({ ...watch, now: () => minutes(11) });
    expect(step).toMatchObject({ done: 'aborted' });
  });

  it('waits without enough data, and says so; a paused rollout never advances but is still aborted', async () => {
    const { settings, first, second, view, watch, minutes, rollout, db: data } = await rolledOut();
    for (let i = 0; i < 10; i++) await view(second, 0);
    expect(await watchRollouts({ ...watch, now: () => minutes(30) })).toEqual([]);
    const judged = await judgeRollout(data, judgedOver(rollout), undefined, () => minutes(30));
    expect(rolloutLines(rollout, minutes(30), judged).join('\n')).toMatch(
      /5% of visitors, stage 1 of 3 \(\[5%\] -> 25% -> 100%\)[\s\S]*next: waiting for more visitors: counted views from 10 of 20 networks; the stage has run its time/,
    );

    await stepRollout(settings, 'legal', 'pause');
    for (let i = 0; i < 200; i++) await view(first, 0);
    for (let i = 0; i < 190; i++) await view(second, 0);
    expect(await watchRollouts({ ...watch, now: () => minutes(60) })).toEqual([]);
    for (let i = 0; i < 60; i++) await view(second, 1);
    const [step] = await watchRollouts({ ...watch, now: () => minutes(60) });
    expect(step).toMatchObject({ done: 'aborted' });
  });

  it('keeps judging a rollout beside another remote’s entry that is not one (a time that is not a time)', async () => {
    const { settings, first, second, view, watch, minutes, rollout } = await rolledOut();
    const file = rolloutsFile(settings.manifestFile);
    const broken = { ...rollout, remote: 'vendor', stageSince: 'yesterday-ish' };
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), vendor: broken }));
    expect(rolloutProblem(broken)).toBe('stageSince is not a time');
    expect(Object.keys(await ledgerOf(settings).rollouts())).toEqual(['legal']);
    for (let i = 0; i < 200; i++) await view(first, 0);
    for (let i = 0; i < 200; i++) await view(second, 0);
    const [step] = await watchRollouts({ ...watch, now: () => minutes(10) });
    expect(step).toMatchObject({ remote: 'legal', done: 'advanced' });
    // Said once at warn, whatever the number of looks; the team's command names it instead of a stack.
    await watchRollouts({ ...watch, now: () => minutes(11) });
    const said = vi
      .mocked(log.warn)
      .mock.calls.filter(([, message]) => String(message).startsWith('rollout entry passed over'));
    expect(said).toEqual([[{ remote: 'vendor', problem: 'stageSince is not a time' }, expect.any(String)]]);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['bin/release.mjs', ...args], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { PATH: process.env.PATH, REMOTES_DIR: settings.remotesDir, REMOTES_MANIFEST: settings.manifestFile },
        encoding: 'utf8',
      });
    const status = cli('rollout', 'vendor', 'status');
    expect(status.status, status.stdout + status.stderr).toBe(1);
    expect(status.stderr).toMatch(/vendor: the rollout entry is not one \(stageSince is not a time\)/);
    expect(status.stderr).not.toMatch(/\n\s+at /);
    expect(cli('rollout', 'vendor', 'abort').stdout).toMatch(/vendor: removed the rollout entry that was not one/);
    expect(cli('rollout', 'vendor', 'status').stdout).toMatch(/vendor: no rollout under way/);
  });

  it('takes a decision once when two watches look at the same time', async () => {
    const { first, second, view, watch, minutes, webhooks } = await rolledOut();
    for (let i = 0; i < 200; i++) await view(first, 0);
    for (let i = 0; i < 200; i++) await view(second, 0);
    const looks = await Promise.all([1, 2].map(() => watchRollouts({ ...watch, now: () => minutes(10) })));
    expect(looks.flat()).toHaveLength(1);
    expect(await webhooks()).toHaveLength(1);
  });
});

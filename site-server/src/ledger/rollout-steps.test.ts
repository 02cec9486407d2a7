import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from 'api';
import { afterEach, describe, expect, it } from 'vitest';
import { promote, release, releases, rollback } from '../releases/release.ts';
import { deployedLegal } from '../watch/test-deployment.ts';
import { mayGoLiveAgain, recordsOf } from './records.ts';
import { stepRollout } from './rollout-steps.ts';
import { ledgerOf } from './switches.ts';

const inStages = { rollout: { stages: [5, 25, 100], stageMinutes: 10 } };
const unchecked = { prebuilt: true, force: { reason: 'unit test' } };

describe('the steps of a rollout', () => {
  let db: Db | undefined;
  afterEach(async () => db?.destroy());

  async function rolledOut() {
    const deployment = await deployedLegal(inStages);
    db = deployment.db;
    const { settings } = deployment;
    const rollout = async () => (await ledgerOf(settings).rollouts()).legal;
    const live = () => JSON.parse(readFileSync(settings.manifestFile, 'utf8')).legal as string;
    return { ...deployment, rollout, live };
  }

  it('pauses and resumes (each once), advances a stage, and completes: live for everyone, the rollout over', async () => {
    const { settings, second, rollout, live } = await rolledOut();
    expect(await stepRollout(settings, 'legal', 'pause')).toMatchObject({ done: 'paused' });
    expect((await rollout())?.pausedAt).toBeDefined();
    await expect(stepRollout(settings, 'legal', 'pause')).rejects.toThrow('is paused already');
    expect(await stepRollout(settings, 'legal', 'resume')).toMatchObject({ done: 'resumed' });
    await expect(stepRollout(settings, 'legal', 'resume')).rejects.toThrow('is running already');
    expect(await stepRollout(settings, 'legal', 'advance')).toMatchObject({ done: 'advanced', after: { stage: 1 } });
    // Past the stage before 100%, an advance is the completion.
    expect(await stepRollout(settings, 'legal', 'advance')).toMatchObject({ done: 'completed' });
    expect(await rollout()).toBeUndefined();
    expect(live()).toBe(`/remotes/legal/${second}/remoteEntry.js`);
    // Its whole road stays in the list, each step with its time, once the rollout is over.
    const time = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d UTC`;
    const { history } = (await releases(settings, 'legal')).find((entry) => entry.version === second)!;
    expect(history.slice(-6)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^rollout started: 5%, 25%, 100% of visitors, 10 min a stage at least, against \\S+ \\(\\S+, ${time}\\)$`,
        ),
      ),
      expect.stringMatching(new RegExp(`^paused at 5% \\(\\S+, ${time}\\)$`)),
      expect.stringMatching(new RegExp(`^resumed at 5% \\(\\S+, ${time}\\)$`)),
      expect.stringMatching(new RegExp(`^advanced to 25% by \\S+: .* \\(${time}\\)$`)),
      expect.stringMatching(new RegExp(`^advanced to 100% by \\S+: .* \\(${time}\\)$`)),
      expect.stringMatching(new RegExp(`^live for everyone: its rollout completed \\(${time}\\)$`)),
    ]);
    await expect(stepRollout(settings, 'legal', 'abort')).rejects.toThrow('legal has no rollout under way');
  });

  it('aborts by hand: every visitor back on the current version, which the version may go live again after', async () => {
    const { settings, first, second, rollout, live } = await rolledOut();
    expect((await releases(settings, 'legal')).map(({ live, canary }) => ({ live, canary }))).toEqual([
      { live: true, canary: undefined },
      { live: false, canary: 5 },
    ]);
    expect(await stepRollout(settings, 'legal', 'abort', { why: 'wrong copy' })).toMatchObject({ done: 'aborted' });
    expect(await rollout()).toBeUndefined();
    expect(live()).toBe(`/remotes/legal/${first}/remoteEntry.js`);
    const records = recordsOf(settings.manifestFile, 'legal');
    expect(records.at(-1)).toMatchObject({ event: 'rollout-aborted', why: 'wrong copy', by: 'operator', share: 5 });
    expect(mayGoLiveAgain(records, second)).toBe(true);

    // Promoted later, checks and all: the list still tells of the abort, who made it, why and when.
    await promote(settings, 'legal', second, unchecked);
    const { history, live: isLive } = (await releases(settings, 'legal'))[1]!;
    expect(isLive).toBe(true);
    expect(history).toEqual([
      expect.stringMatching(/^forced: unit test \(/),
      expect.stringMatching(/^rollout started: 5%, 25%, 100% of visitors/),
      expect.stringMatching(/^rollout aborted at 5% by \S+: wrong copy \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/),
      expect.stringMatching(/^forced: unit test \(/),
    ]);
  });

  it('refuses a new release, a promote or a rollback of the remote while its rollout is under way', async () => {
    const { settings, rollout, live } = await rolledOut();
    const before = live();
    writeFileSync(join(settings.root, 'legal', 'dist', 'remoteEntry.js'), 'third');
    const underWay = /A rollout of legal .* is under way \(5% of visitors\)/;
    await expect(release(settings, 'legal', unchecked)).rejects.toThrow(underWay);
    await expect(release(settings, 'legal', { ...unchecked, ...inStages })).rejects.toThrow(underWay);
    await expect(rollback(settings, 'legal')).rejects.toThrow(underWay);
    expect(live()).toBe(before);
    expect((await rollout())?.stage).toBe(0);
  });

  it('does nothing when the rollout moved since the step was decided (another server decided first)', async () => {
    const { settings, rollout } = await rolledOut();
    const decidedOn = (await rollout())!;
    await stepRollout(settings, 'legal', 'advance');
    expect(await stepRollout(settings, 'legal', 'abort', { decidedOn, by: 'watch' })).toBeUndefined();
    expect((await rollout())?.stage).toBe(1);
  });
});

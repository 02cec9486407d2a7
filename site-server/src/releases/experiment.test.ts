import { readFileSync } from 'node:fs';
import type { Db } from 'api';
import { defaultRule } from 'api/commands';
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { historyOf, recordsOf } from '../ledger/records.ts';
import { stepRollout } from '../ledger/rollout-steps.ts';
import { ledgerOf } from '../ledger/switches.ts';
import { watchRollouts } from '../watch/rollout-watch.ts';
import { deployed } from '../watch/test-deployment.ts';
import { experimentCommand, type ExperimentValues } from './experiment-cli.ts';
import { promote, type PromoteOptions } from './release.ts';

const log = { warn: vi.fn(), info: vi.fn(), error: vi.fn() } as unknown as FastifyBaseLogger;
const day = 86_400_000;

// Hundreds of views stored one by one: seconds on a busy machine, so a generous timeout (a safety net, not a measure).
describe('an experiment on a remote', { timeout: 60_000 }, () => {
  let db: Db | undefined;
  afterEach(async () => db?.destroy());

  /**
   * vendor with two versions, the second not live; `experiment` runs the command as `pnpm experiment vendor ...` with
   * this deployment's settings and field data, its release checks skipped (a journey runs them), and resolves with
   * what it printed.
   */
  async function deployment() {
    const deployment = await deployed('vendor');
    db = deployment.db;
    const { settings, first } = deployment;
    // The second version was released for everyone: back to the first, so that it is the current one again.
    await promote(settings, 'vendor', first, { force: { reason: 'unit test' } });
    const printed: string[] = [];
    const experiment = async (action: string, version?: string, values: ExperimentValues = {}) => {
      printed.length = 0;
      await experimentCommand('vendor', action, version, values, {
        settings: async () => settings,
        fieldDataDb: async () => deployment.db,
        rule: defaultRule,
        printSwitch: (change) => printed.push(`${change.from} -> ${change.to}`),
        log: (line) => printed.push(line),
        promote: (s, remote, version, options: PromoteOptions = {}) =>
          promote(s, remote, version, { ...options, force: { reason: 'unit test: the checks run in a journey' } }),
      });
      return printed.join('\n');
    };
    const liveEntry = () => JSON.parse(readFileSync(settings.manifestFile, 'utf8')).vendor as string;
    const rollout = async () => (await ledgerOf(settings).rollouts()).vendor;
    return { ...deployment, experiment, liveEntry, rollout };
  }

  it('starts: the new version serves its share, the current one stays live; one experiment or rollout at a time', async () => {
    const { settings, first, second, experiment, liveEntry, rollout } = await deployment();
    await experiment('start', second, { share: '50', days: '14' });
    expect(await rollout()).toMatchObject({
      version: second,
      current: first,
      stages: [50, 100],
      experiment: { goal: 'portal-click', days: 14 },
    });
    expect(liveEntry()).toBe(`/remotes/vendor/${first}/remoteEntry.js`);
    expect(recordsOf(settings.manifestFile, 'vendor').at(-1)).toMatchObject({
      event: 'rollout-started',
      experiment: { goal: 'portal-click', days: 14 },
      who: expect.any(String),
    });
    await expect(experiment('start', second)).rejects.toThrow(
      /An experiment on vendor .* is under way \(50% of visitors\): .* one experiment or rollout of a remote at a time/,
    );
    await expect(promote(settings, 'vendor', second, { force: { reason: 'x' } })).rejects.toThrow(
      /pnpm experiment vendor stop/,
    );
    await expect(stepRollout(settings, 'vendor', 'complete')).rejects.toThrow(/is an experiment: it is not advanced/);
  });

  it('refuses what is not an experiment: a remote without goals, another goal, a share or days out of range', async () => {
    const { second, experiment } = await deployment();
    await expect(experiment('start', second, { goal: 'store-click' })).rejects.toThrow(
      '--goal: vendor\'s pages have portal-click; not "store-click".',
    );
    await expect(experiment('start', second, { share: '100' })).rejects.toThrow(
      /--share takes a whole number from 1 to 99/,
    );
    await expect(experiment('start', second, { days: '0' })).rejects.toThrow(
      /--days takes a whole number from 1 to 90/,
    );
    await expect(experiment('start', second, { reason: 'x' })).rejects.toThrow('--force goes with --reason');
    await expect(experiment('status', undefined, { share: '50' })).rejects.toThrow('--share does not go with');
    await expect(experiment('ship')).rejects.toThrow('vendor has no experiment under way.');
    await expect(experiment('pause')).rejects.toThrow('pnpm experiment vendor takes start, status, stop, ship');
    expect(await experiment('status')).toBe('vendor: no experiment under way');
    await expect(
      experimentCommand(
        'legal',
        'start',
        'v1',
        {},
        {
          settings: async () => {
            throw new Error('not reached');
          },
          fieldDataDb: async () => undefined,
          rule: defaultRule,
          printSwitch: () => {},
          log: () => {},
        },
      ),
    ).rejects.toThrow(/^legal's pages have no goal to count/);
  });

  it('prints each arm, the difference and the decision; ships the winner only, through a promote', async () => {
    const { settings, first, second, view, experiment, liveEntry } = await deployment();
    await experiment('start', second, { days: '14' });
    // 600 views a version from 600 networks: 5% convert on the current one, 60% on the new one (a difference this
    // large is shown from so few views; the simulation says what real ones need).
    for (let i = 0; i < 600; i++) {
      await view(first, 0, { network: `a-${i}`, goal: i % 20 === 0 ? 'portal-click' : undefined });
      await view(second, 0, { network: `b-${i}`, goal: i % 20 < 12 ? 'portal-click' : undefined });
    }
    const status = await experiment('status');
    expect(status).toMatch(/experiment: \S+ serves 50% of visitors, \S+ the others; goal portal-click; day 1 of 14/);
    expect(status).toMatch(new RegExp(`current +${first} +600 +600 +30 +5\\.00%`));
    expect(status).toMatch(new RegExp(`new \\(50%\\) +${second} +600 +600 +360 +60\\.00%`));
    expect(status).toMatch(/decision so far: the new version converts more: \+55\.00 pp/);
    expect(status).toMatch(/guardrails \(errors, INP, LCP\): /);
    expect(status).toMatch(/next: pnpm experiment vendor ship makes \S+ live for everyone, with the checks/);

    const shipped = await experiment('ship');
    expect(shipped).toContain(`${first} -> ${second}`);
    expect(liveEntry()).toBe(`/remotes/vendor/${second}/remoteEntry.js`);
    expect(await ledgerOf(settings).rollouts()).toEqual({});
    const history = historyOf(recordsOf(settings.manifestFile, 'vendor'), second);
    expect(history.join('\n')).toMatch(
      /experiment on portal-click ended at 50% by .+: experiment shipped: the new version/,
    );
  });

  it('does not ship without a win; stop puts everyone back on the current version, recorded with who', async () => {
    const { settings, first, second, view, experiment, liveEntry } = await deployment();
    await experiment('start', second);
    for (let i = 0; i < 50; i++) await view(second, 0, { network: `b-${i}`, goal: 'portal-click' });
    await expect(experiment('ship')).rejects.toThrow(/^Not shipped: no decision yet/);
    await experiment('stop', undefined, { reason: 'the copy was wrong' });
    expect(await ledgerOf(settings).rollouts()).toEqual({});
    expect(liveEntry()).toBe(`/remotes/vendor/${first}/remoteEntry.js`);
    expect(recordsOf(settings.manifestFile, 'vendor').at(-1)).toMatchObject({
      event: 'rollout-aborted',
      why: 'experiment stopped: the copy was wrong',
      by: 'operator',
      who: expect.any(String),
    });
  });

  it('is never advanced by the watch, however long it runs; a guardrail breach stops it', async () => {
    const { settings, first, second, view, experiment, rollout } = await deployment();
    await experiment('start', second, { days: '1' });
    const started = new Date((await rollout())!.startedAt).getTime();
    const watch = { settings, db: db!, log, webhooks: false };
    for (let i = 0; i < 200; i++) await view(first, 0);
    for (let i = 0; i < 200; i++) await view(second, 0);
    // Past its days and not worse: a rollout's stage would advance here; an experiment waits for a person.
    expect(await watchRollouts({ ...watch, now: () => new Date(started + 2 * day) })).toEqual([]);
    expect(await rollout()).toMatchObject({ version: second });
    // The new version's views err: stopped, everyone back on the current version.
    for (let i = 0; i < 100; i++) await view(second, 1);
    const later = new Date(Date.now() + 20 * 60_000);
    const [step] = await watchRollouts({ ...watch, now: () => later });
    expect(step).toMatchObject({ done: 'aborted' });
    expect(await rollout()).toBeUndefined();
    expect(historyOf(recordsOf(settings.manifestFile, 'vendor'), second).join('\n')).toMatch(
      /experiment on portal-click ended at 50% by the release watch: worse/,
    );
  });
});

import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { cohorts } from '../rollouts/cohorts.ts';
import {
  advanced,
  parseStageMinutes,
  parseStages,
  paused,
  resumed,
  stageElapsedMs,
  stageIsDue,
  type Rollout,
  type Splits,
} from './rollouts.ts';

const live = { legal: '/remotes/legal/v1/remoteEntry.js', vendor: '/remotes/vendor/v7/remoteEntry.js' };
const split = (share: number): Splits => ({
  legal: { version: 'v2', entry: '/remotes/legal/v2/remoteEntry.js', share, stage: 1 },
});

/** A page request with these cookies, and the cookies its reply sets. */
function visit(cookies: Record<string, string> = {}, protocol = 'http') {
  const set: { name: string; value: string; options: Record<string, unknown> }[] = [];
  const request = { cookies, protocol } as unknown as FastifyRequest;
  const reply = {
    setCookie(name: string, value: string, options: Record<string, unknown>) {
      set.push({ name, value, options });
      return reply;
    },
  } as unknown as FastifyReply;
  return { request, reply, set };
}

describe('cohorts', () => {
  it('puts 4-6% of 10,000 new visitors in a 5% canary, each by a bucket drawn once', () => {
    const site = cohorts();
    let canary = 0;
    for (let visitor = 0; visitor < 10_000; visitor++) {
      const first = visit();
      // The first page: the current version, and a bucket for the next ones.
      expect(site.ofPage(first.request, first.reply, live, split(5)).manifest.legal).toBe(live.legal);
      const [cookie] = first.set;
      expect(cookie).toMatchObject({ name: 'cohort', options: { httpOnly: true, sameSite: 'lax', path: '/' } });
      const next = visit({ cohort: cookie!.value });
      const cohort = site.ofPage(next.request, next.reply, live, split(5));
      expect(next.set).toEqual([]);
      if (cohort.canary.has('legal')) canary += 1;
    }
    expect(canary).toBeGreaterThanOrEqual(400);
    expect(canary).toBeLessThanOrEqual(600);
  });

  it('keeps a visitor in its cohort on every page, and raising the share only adds visitors', () => {
    const site = cohorts();
    const stages = [5, 25, 50, 100].map(split);
    for (let bucket = 0; bucket < 100; bucket++) {
      const seen = stages.map((splits) => {
        const { request, reply } = visit({ cohort: String(bucket) });
        const first = site.ofPage(request, reply, live, splits);
        expect(site.ofPage(request, reply, live, splits)).toBe(first);
        return first.canary.has('legal');
      });
      // Once in the canary, in it at every larger share.
      expect(seen.slice(seen.indexOf(true))).not.toContain(false);
    }
  });

  it('changes only the remote under the rollout, and gives each cohort one manifest object', () => {
    const site = cohorts();
    const splits = split(25);
    const canary = site.cohortOf(live, splits, 3);
    expect(canary.manifest).toEqual({ ...live, legal: '/remotes/legal/v2/remoteEntry.js' });
    expect(canary.key).toBe('legal');
    expect(site.cohortOf(live, splits, 4)).toBe(canary);
    const current = site.cohortOf(live, splits, 60);
    expect(current.manifest).toBe(live);
    expect(current.key).toBe('');
  });

  it('serves the current version to a visitor without cookies or with a cookie that is not a bucket', () => {
    const site = cohorts();
    for (const value of [undefined, '', '100', '-1', '3.5', 'abc', '1e1']) {
      const { request, reply } = visit(value === undefined ? {} : { cohort: value });
      expect(site.ofPage(request, reply, live, split(100)).manifest).toBe(live);
    }
  });

  it('names the cookie __Host- on https, and draws no bucket when no rollout is under way', () => {
    const site = cohorts();
    const secure = visit({}, 'https');
    site.ofPage(secure.request, secure.reply, live, split(5));
    expect(secure.set[0]).toMatchObject({ name: '__Host-cohort', options: { secure: true } });
    const none = visit();
    site.ofPage(none.request, none.reply, live, {});
    expect(none.set).toEqual([]);
  });
});

describe('a rollout stage', () => {
  const start = new Date(Date.UTC(2026, 10, 26, 10, 0));
  const minutes = (count: number) => new Date(start.getTime() + count * 60_000);
  const rollout: Rollout = {
    remote: 'legal',
    version: 'v2',
    entry: '/remotes/legal/v2/remoteEntry.js',
    current: 'v1',
    stages: [5, 25, 100],
    stage: 0,
    stageMinutes: 10,
    stageSince: start.toISOString(),
    pausedMs: 0,
    startedAt: start.toISOString(),
    startedBy: 'ops',
  };

  it('is due after its minutes, not counting the time it was paused', () => {
    expect(stageIsDue(rollout, minutes(9))).toBe(false);
    expect(stageIsDue(rollout, minutes(10))).toBe(true);
    const held = paused(rollout, minutes(4));
    expect(stageIsDue(held, minutes(30))).toBe(false);
    const going = resumed(held, minutes(9));
    expect(stageElapsedMs(going, minutes(10)) / 60_000).toBe(5);
    expect(stageIsDue(going, minutes(14))).toBe(false);
    expect(stageIsDue(going, minutes(15))).toBe(true);
  });

  it('advances to the next share from now, and has no stage after the one before 100%', () => {
    const next = advanced(paused(rollout, minutes(2)), minutes(12))!;
    expect(next).toMatchObject({ stage: 1, stageSince: minutes(12).toISOString(), pausedMs: 0 });
    expect(next.pausedAt).toBeUndefined();
    expect(advanced(next, minutes(30))).toBeUndefined();
  });

  it('takes stages that rise to 100 and minutes above 0, and says what is wrong otherwise', () => {
    expect(parseStages('5,25,100')).toEqual({ stages: [5, 25, 100] });
    expect(parseStages('1, 100')).toEqual({ stages: [1, 100] });
    expect(parseStages('5,25')).toEqual({ problem: expect.stringContaining('ends at 100') });
    expect(parseStages('25,5,100')).toEqual({ problem: expect.stringContaining('more visitors than the one before') });
    expect(parseStages('100')).toEqual({ problem: expect.stringContaining('a stage before 100') });
    expect(parseStages('0,100')).toEqual({ problem: expect.stringContaining('between 1 and 100') });
    expect(parseStages('5%,100')).toEqual({ problem: expect.stringContaining('whole percents') });
    expect(parseStageMinutes('0.5')).toEqual({ minutes: 0.5 });
    for (const text of ['0', '-1', 'ten', '1e3', '20000']) {
      expect(parseStageMinutes(text)).toEqual({ problem: expect.stringContaining('--stage-minutes') });
    }
  });
});

import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { cohorts, getsNewVersion, newVisitorId } from '../rollouts/cohorts.ts';
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
const split = (share: number, id = 'legal/v2/2026-12-02T06:00:00.000Z'): Splits => ({
  legal: { id, version: 'v2', entry: '/remotes/legal/v2/remoteEntry.js', share, stage: 1 },
});
const browser = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0 Safari/537.36';

/** A page request with these cookies, and the cookies its reply sets. */
function visit(cookies: Record<string, string> = {}, protocol = 'http', userAgent = browser) {
  const set: { name: string; value: string; options: Record<string, unknown> }[] = [];
  const request = { cookies, protocol, headers: { 'user-agent': userAgent } } as unknown as FastifyRequest;
  const reply = {
    setCookie(name: string, value: string, options: Record<string, unknown>) {
      set.push({ name, value, options });
      return reply;
    },
  } as unknown as FastifyReply;
  return { request, reply, set };
}

describe('cohorts', () => {
  it('serves 4-6% of 10,000 first visits the 5% canary on that first page, and keeps each in its arm after', () => {
    const site = cohorts();
    const splits = split(5);
    let canary = 0;
    for (let visitor = 0; visitor < 10_000; visitor++) {
      const first = visit();
      const cohort = site.ofPage(first.request, first.reply, live, splits);
      const [cookie] = first.set;
      expect(cookie).toMatchObject({ name: 'cohort', options: { httpOnly: true, sameSite: 'lax', path: '/' } });
      const next = visit({ cohort: cookie!.value });
      expect(site.ofPage(next.request, next.reply, live, splits)).toBe(cohort);
      expect(next.set).toEqual([]);
      if (cohort.canary.has('legal')) canary += 1;
    }
    expect(canary).toBeGreaterThanOrEqual(400);
    expect(canary).toBeLessThanOrEqual(600);
  });

  it('keeps a visitor in its arm on every page, and raising the share only adds visitors', () => {
    const site = cohorts();
    const stages = [5, 25, 50, 100].map((share) => split(share));
    for (let n = 0; n < 200; n++) {
      const id = newVisitorId();
      const seen = stages.map((splits) => {
        const { request, reply } = visit({ cohort: id });
        const first = site.ofPage(request, reply, live, splits);
        expect(site.ofPage(request, reply, live, splits)).toBe(first);
        return first.canary.has('legal');
      });
      // Once in the canary, in it at every larger share.
      expect(seen.slice(seen.indexOf(true))).not.toContain(false);
    }
  });

  it('draws each test apart: two at once agree for about half the visitors, a new rollout picks a new canary', () => {
    const ids = Array.from({ length: 4000 }, newVisitorId);
    const inNew = (test: string, share: number) => ids.map((id) => getsNewVersion({ id: test, share }, id));
    const [vendor, business] = [inNew('vendor/v2/t1', 50), inNew('business/v9/t1', 50)];
    const agree = vendor.filter((arm, index) => arm === business[index]).length / ids.length;
    expect(agree).toBeGreaterThan(0.45);
    expect(agree).toBeLessThan(0.55);
    // Two 5% canaries one after the other: both hold about 5% of 5% of visitors (0.25%), not 5%.
    const [first, second] = [inNew('legal/v2/t1', 5), inNew('legal/v3/t2', 5)];
    expect(first.filter((arm, index) => arm && second[index]).length).toBeLessThan(ids.length * 0.01);
  });

  it('changes only the remote under the rollout, and gives each cohort one manifest object', () => {
    const site = cohorts();
    const splits = split(25);
    const [canaryId, otherCanaryId, currentId] = [
      ...Array.from({ length: 200 }, newVisitorId)
        .filter((id) => getsNewVersion(splits.legal!, id))
        .slice(0, 2),
      Array.from({ length: 200 }, newVisitorId).find((id) => !getsNewVersion(splits.legal!, id))!,
    ];
    const canary = site.cohortOf(live, splits, canaryId);
    expect(canary.manifest).toEqual({ ...live, legal: '/remotes/legal/v2/remoteEntry.js' });
    expect(canary.key).toBe('legal');
    expect(site.cohortOf(live, splits, otherCanaryId)).toBe(canary);
    const current = site.cohortOf(live, splits, currentId);
    expect(current.manifest).toBe(live);
    expect(current.key).toBe('');
  });

  it('gives a new id for a cookie that is not one (an older bucket included), and none to a crawler', () => {
    const site = cohorts();
    for (const value of ['', '100', '7', 'abc', 'x'.repeat(23)]) {
      const { request, reply, set } = visit({ cohort: value });
      site.ofPage(request, reply, live, split(100));
      expect(set[0]?.value).toMatch(/^[A-Za-z0-9_-]{22}$/);
    }
    const bot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    const crawler = visit({}, 'http', bot);
    expect(site.ofPage(crawler.request, crawler.reply, live, split(100)).manifest).toBe(live);
    expect(crawler.set).toEqual([]);
    const withId = visit({ cohort: newVisitorId() }, 'http', bot);
    expect(site.ofRequest(withId.request, live, split(100)).manifest).toBe(live);
  });

  it('names the cookie __Host- on https, and draws no id when no test is under way', () => {
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

// rollouts/: which version of a remote under a staged rollout or an experiment each visitor is served: the visitor's
// id in the cohort cookie, its arm in each test drawn apart, and its pages.
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createIsbotFromList, list } from 'isbot';
import { remoteNames, type RemoteName, type RemotesManifest } from '@gift/federation';
import { inCanary, type Split, type Splits } from '../ledger/rollouts.ts';

export { testIdOf, type Rollout } from '../ledger/rollouts.ts';

/**
 * Sticky, anonymous arms, drawn apart for each test. A visitor is given a random id once, in a first-party cookie that
 * names nothing else (HttpOnly, SameSite=Lax, `__Host-` on https), on its first page while a rollout or experiment is
 * under way, and that page is already served its arms. Its place in a test is a hash of the id and the test's own id
 * (`Split.id`: the remote, the version and when it started), a number in [0, 100): below the share, the new version.
 * So a visitor keeps its arm for the test's whole life on every site server, raising the share only adds visitors,
 * two tests at once assign independently, and a new rollout draws its canary afresh. Crawlers (by user agent) get the
 * current versions, no cookie and no view ticket: they are in no arm and in no arm's figures.
 */

const cookieOf = (request: FastifyRequest) => `${request.protocol === 'https' ? '__Host-' : ''}cohort`;
const cookieOptions = (request: FastifyRequest) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: request.protocol === 'https',
  // Long enough for an experiment's days and a visitor's return; a new id is drawn after.
  maxAge: 90 * 24 * 3600,
});

/** 16 random bytes, base64url: what a visitor's id is, and nothing else is taken for one. */
const visitorIdPattern = /^[A-Za-z0-9_-]{22}$/;
export const newVisitorId = () => randomBytes(16).toString('base64url');

/** A visitor's id from its cookie, or undefined for none or anything else (an older cookie's bucket included). */
export function visitorOf(request: FastifyRequest): string | undefined {
  const value = request.cookies[cookieOf(request)];
  return value !== undefined && visitorIdPattern.test(value) ? value : undefined;
}

/**
 * Whether the request comes from a crawler or a script, by its user agent: isbot's list (search engines, AI crawlers,
 * link previews, HTTP libraries; kept up to date by its maintainers), less headless browsers, which run a page as a
 * visitor's browser does (synthetic checks, this site's journeys).
 */
const crawler = createIsbotFromList(list.filter((pattern) => !new RegExp(pattern, 'i').test('HeadlessChrome')));
/** User agents already judged (2-3 µs each against isbot's list, a hash lookup after): a site meets few of them. */
const judged = new Map<string, boolean>();
export function isCrawler(request: FastifyRequest): boolean {
  const agent = request.headers['user-agent'] ?? '';
  let verdict = judged.get(agent);
  if (verdict === undefined) {
    if (judged.size >= 2000) judged.clear();
    judged.set(agent, (verdict = crawler(agent)));
  }
  return verdict;
}

/** Where a visitor falls in one test: a number in [0, 100) from its id and the test's, the same on every server. */
export function placeIn(testId: string, visitor: string): number {
  return (createHash('sha256').update(`${testId}\n${visitor}`).digest().readUInt32BE(0) / 2 ** 32) * 100;
}

/**
 * A new visitor's id whose place in the test `testId` is `place` (a whole number 0-99): for rehearsals and journeys
 * that need a visitor in a given arm (below the share, the new version).
 */
export function visitorAt(testId: string, place: number): string {
  for (;;) {
    const visitor = newVisitorId();
    if (Math.floor(placeIn(testId, visitor)) === place) return visitor;
  }
}

/** Whether `visitor` gets the new version of the test `split` describes. */
export const getsNewVersion = (split: Pick<Split, 'id' | 'share'>, visitor: string) =>
  inCanary(placeIn(split.id, visitor), split.share);

/** A cohort's manifest: the live one with each remote whose new version this cohort gets at that version's entry. */
export interface Cohort {
  manifest: RemotesManifest;
  /** The remotes this cohort gets the new version of, joined: '' for the current versions of everything. */
  key: string;
  canary: ReadonlySet<RemoteName>;
}

const currentOf = (manifest: RemotesManifest): Cohort => ({ manifest, key: '', canary: new Set() });

/** The page requests on which a visitor was given its id: its view's ticket says so, for the sample ratio check. */
const assignedOn = new WeakSet<FastifyRequest>();
export const assignedOnThisPage = (request: FastifyRequest) => assignedOn.has(request);

/**
 * The cohorts of the site: the manifest a visitor's pages are composed with, made once per (live manifest, rollouts,
 * cohort) and the same object after, so that what is kept by manifest (its element, its pages) is kept per cohort.
 */
export function cohorts() {
  const made = new WeakMap<RemotesManifest, WeakMap<Splits, Map<string, Cohort>>>();
  const current = new WeakMap<RemotesManifest, Cohort>();

  /** The cohort of `visitor` under `splits`. */
  function cohortOf(live: RemotesManifest, splits: Splits, visitor: string | undefined): Cohort {
    const canary =
      visitor === undefined
        ? []
        : remoteNames.filter((remote) => {
            const split = splits[remote];
            return split !== undefined && getsNewVersion(split, visitor);
          });
    if (!canary.length) {
      let cohort = current.get(live);
      if (!cohort) current.set(live, (cohort = currentOf(live)));
      return cohort;
    }
    const key = canary.join(' ');
    let bySplits = made.get(live);
    if (!bySplits) made.set(live, (bySplits = new WeakMap()));
    let byKey = bySplits.get(splits);
    if (!byKey) bySplits.set(splits, (byKey = new Map()));
    let cohort = byKey.get(key);
    if (!cohort) {
      const manifest = { ...live };
      for (const remote of canary) manifest[remote] = splits[remote]!.entry;
      byKey.set(key, (cohort = { manifest, key, canary: new Set(canary) }));
    }
    return cohort;
  }

  return {
    cohortOf,
    /**
     * The cohort a page request is served. A visitor without an id is given one on this answer while a test is under
     * way, and this page is already its arms'; a crawler gets the current versions and no id.
     */
    ofPage(request: FastifyRequest, reply: FastifyReply, live: RemotesManifest, splits: Splits): Cohort {
      let visitor = visitorOf(request);
      if (visitor === undefined && Object.keys(splits).length > 0 && !isCrawler(request)) {
        visitor = newVisitorId();
        reply.setCookie(cookieOf(request), visitor, cookieOptions(request));
        assignedOn.add(request);
      }
      return cohortOf(live, splits, visitor);
    },
    /** The cohort of any other request (the manifest a page asks for again): never draws an id. */
    ofRequest: (request: FastifyRequest, live: RemotesManifest, splits: Splits) =>
      cohortOf(live, splits, isCrawler(request) ? undefined : visitorOf(request)),
  };
}

export type Cohorts = ReturnType<typeof cohorts>;

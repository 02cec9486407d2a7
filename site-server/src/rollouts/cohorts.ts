// rollouts/: which version of a remote under a staged rollout each visitor is served: the cohort cookie and its pages.
import { randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { remoteNames, type RemoteName, type RemotesManifest } from '@gift/federation';
import { inCanary, type Splits } from '../ledger/rollouts.ts';

/**
 * Sticky, anonymous cohorts. A visitor is given a random bucket (0-99) once, in a first-party cookie that names nothing
 * else (HttpOnly, SameSite=Lax, `__Host-` on https), and sees a rollout's new version (the canary) when its bucket is
 * below the stage's share: every page, reload and site server gives it the same version until the share changes, and
 * raising the share only adds buckets. A request without the cookie (a crawler, a first visit) is served the current
 * versions; the bucket is drawn then, and only while a rollout is under way.
 */

const cookieOf = (request: FastifyRequest) => `${request.protocol === 'https' ? '__Host-' : ''}cohort`;
const cookieOptions = (request: FastifyRequest) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: request.protocol === 'https',
  // Long enough for a rollout's stages and a visitor's return; it is drawn again after.
  maxAge: 30 * 24 * 3600,
});

/** A visitor's bucket from its cookie: a whole number 0-99, or undefined for none or anything else. */
export function bucketOf(request: FastifyRequest): number | undefined {
  const value = request.cookies[cookieOf(request)];
  return value !== undefined && /^\d{1,2}$/.test(value) ? Number(value) : undefined;
}

/** A cohort's manifest: the live one with each remote whose canary this cohort gets at its canary's entry. */
export interface Cohort {
  manifest: RemotesManifest;
  /** The remotes this cohort gets the canary of, joined: '' for the current versions of everything. */
  key: string;
  canary: ReadonlySet<RemoteName>;
}

const currentOf = (manifest: RemotesManifest): Cohort => ({ manifest, key: '', canary: new Set() });

/**
 * The cohorts of the site: the manifest a visitor's pages are composed with, made once per (live manifest, rollouts,
 * cohort) and the same object after, so that what is kept by manifest (its element, its pages) is kept per cohort.
 */
export function cohorts() {
  const made = new WeakMap<RemotesManifest, WeakMap<Splits, Map<string, Cohort>>>();
  const current = new WeakMap<RemotesManifest, Cohort>();

  /** The cohort of `bucket` under `splits`. */
  function cohortOf(live: RemotesManifest, splits: Splits, bucket: number | undefined): Cohort {
    const canary =
      bucket === undefined
        ? []
        : remoteNames.filter((remote) => {
            const split = splits[remote];
            return split !== undefined && inCanary(bucket, split.share);
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
     * The cohort a page request is served: its bucket's, or the current versions' for a request without one, which is
     * given a bucket for its next pages while a rollout is under way.
     */
    ofPage(request: FastifyRequest, reply: FastifyReply, live: RemotesManifest, splits: Splits): Cohort {
      const bucket = bucketOf(request);
      if (bucket === undefined && Object.keys(splits).length > 0) {
        reply.setCookie(cookieOf(request), String(randomInt(100)), cookieOptions(request));
      }
      return cohortOf(live, splits, bucket);
    },
    /** The cohort of any other request (the manifest a page asks for again): never draws a bucket. */
    ofRequest: (request: FastifyRequest, live: RemotesManifest, splits: Splits) =>
      cohortOf(live, splits, bucketOf(request)),
  };
}

export type Cohorts = ReturnType<typeof cohorts>;

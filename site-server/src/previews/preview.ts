// previews/: one browser's own view of versions that are not live: signed preview links, developer overrides.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { routesOf } from '@gift/content';
import { remoteNames, remotes, type RemoteName, type RemotesManifest } from '@gift/federation';
import { plainPage } from '../pages/plain-page.ts';
import { ignoredCookieLog } from './ignored-cookies.ts';
import {
  checkedSecret,
  endPreviewPath,
  previewPath,
  readPreviewToken,
  type PreviewGrant,
} from '../ledger/preview-links.ts';
import { isPublished, versionEntryUrl } from '../ledger/versions.ts';

/**
 * Signed preview links, as the site honours them: a team opens a published, not yet live, version of its remote on the real site, in its own
 * browser only. A link carries a token (remote, version, expiry) signed with PREVIEW_SECRET; the site turns it into a
 * cookie, and every page that browser asks for is composed with that version in place of the live one.
 */

/** The manifest a previewing browser gets: the live one, with each previewed remote at its previewed version. */
export function withPreviews(manifest: RemotesManifest, grants: PreviewGrant[], remotesBaseUrl?: string) {
  if (!grants.length) return manifest;
  const changed = { ...manifest };
  for (const { remote, version } of grants) changed[remote] = versionEntryUrl(remote, version, remotesBaseUrl);
  return changed;
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A same-site path to go back to after a preview ends; anything else is the home page. */
export const safePath = (value: unknown) =>
  typeof value === 'string' && /^\/(?![/\\])[^\s\\]*$/.test(value) && value.length < 2048 ? value : '/';

/**
 * The bar a previewed page shows above everything else, outside the part React owns, with a link (no script needed)
 * that ends the preview and comes back to the same page.
 */
export function previewBar(grants: PreviewGrant[], path: string): string {
  const what = grants.map(({ remote, version }) => `${remotes[remote].folder} ${version}`).join(', ');
  const end = `${endPreviewPath}?to=${encodeURIComponent(path)}`;
  return `<aside class="preview-bar" aria-label="Preview"><style>.preview-bar{background:#1d1726;color:#fff;font:0.875rem/1.4 var(--font-body,system-ui),sans-serif;padding:0.4rem 1rem;text-align:center;overflow-wrap:anywhere}.preview-bar a{color:#fde7ef;font-weight:600}.preview-bar a:focus-visible{outline:2px solid #fff;outline-offset:2px}</style>Preview: ${escapeHtml(what)} · <a href="${escapeHtml(end)}">end preview</a></aside>`;
}

export interface Previews {
  /** The previews a request's cookies grant; a cookie that grants nothing is logged, cleared and ignored. */
  grantsOf(request: FastifyRequest, reply: FastifyReply): PreviewGrant[];
}

/**
 * Preview links on the site server: `GET /__preview?token=` sets the cookie and goes to the remote's first page,
 * `GET /__preview/end` clears every preview cookie. Only a valid, unexpired signature for a version published under
 * `remotesDir` is honoured. Without a secret nothing is registered and no cookie is read: previews are off.
 */
export function registerPreviews(
  app: FastifyInstance,
  {
    secret,
    remotesDir,
    fetchVersion,
  }: {
    secret?: string;
    remotesDir?: string;
    /** Brings a published version's server build here when this server lacks it (a site server fed by a CDN). */
    fetchVersion?: (remote: RemoteName, version: string) => Promise<void>;
  },
): Previews {
  if (!secret) return { grantsOf: () => [] };
  checkedSecret(secret);
  const ignored = ignoredCookieLog('Preview cookie ignored');

  // `__Host-` on https: a cookie only this origin can have set, for every path, never a subdomain's.
  const cookieName = (request: FastifyRequest, remote: RemoteName) =>
    `${request.protocol === 'https' ? '__Host-' : ''}preview-${remotes[remote].folder}`;
  const cookieOptions = (request: FastifyRequest) => ({
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https',
  });

  /** A token's grant when it may be honoured here, else why not. */
  const honoured = (token: string): { grant?: PreviewGrant; why?: string } => {
    const reading = readPreviewToken(token, secret);
    if (!reading.ok) return { why: reading.reason };
    if (!remotesDir || !isPublished(remotesDir, reading.grant.remote, reading.grant.version)) {
      return { why: 'unknown version' };
    }
    return { grant: reading.grant };
  };

  app.get(previewPath, async (request, reply) => {
    const token = (request.query as Record<string, unknown>).token;
    // A candidate this server has never served: its build is fetched (and checked) first, once per server.
    const reading = typeof token === 'string' ? readPreviewToken(token, secret) : undefined;
    if (
      reading?.ok &&
      remotesDir &&
      fetchVersion &&
      !isPublished(remotesDir, reading.grant.remote, reading.grant.version)
    ) {
      await fetchVersion(reading.grant.remote, reading.grant.version).catch((error: unknown) =>
        request.log.warn({ err: error, version: reading.grant.version }, 'The previewed version cannot be had here'),
      );
    }
    const { grant, why } = typeof token === 'string' ? honoured(token) : { why: 'malformed' };
    reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
    if (!grant) {
      request.log.warn({ reason: why }, 'Preview link refused');
      const expired = why === 'expired';
      return reply
        .code(expired ? 410 : 403)
        .type('text/html; charset=utf-8')
        .send(
          plainPage(expired ? 'This preview link has expired' : 'This preview link is not valid', [
            expired
              ? 'Ask the team for a new link. The site itself is shown as it is live.'
              : 'It may have been copied incompletely, or the version it shows is gone. Ask the team for a new link.',
          ]),
        );
    }
    const maxAge = Math.max(1, Math.floor((grant.expires - Date.now()) / 1000));
    const [landing] = routesOf(grant.remote).filter((route) => !route.path.includes('*'));
    request.log.info({ remote: grant.remote, version: grant.version }, 'Preview started');
    return reply
      .setCookie(cookieName(request, grant.remote), token as string, { ...cookieOptions(request), maxAge })
      .redirect(landing?.path ?? '/', 303);
  });

  app.get(endPreviewPath, async (request, reply) => {
    for (const remote of remoteNames) reply.clearCookie(cookieName(request, remote), cookieOptions(request));
    return reply
      .header('Cache-Control', 'no-store')
      .redirect(safePath((request.query as Record<string, unknown>).to), 303);
  });

  return {
    grantsOf(request, reply) {
      const grants: PreviewGrant[] = [];
      for (const remote of remoteNames) {
        const name = cookieName(request, remote);
        const token = request.cookies[name];
        if (token === undefined) continue;
        const { grant, why } = honoured(token);
        if (grant?.remote === remote) {
          grants.push(grant);
          continue;
        }
        // Forged, expired, tampered with, for another remote, or a version that is gone: the live build is served.
        ignored(request, remote, why ?? 'another remote');
        reply.clearCookie(name, cookieOptions(request));
      }
      return grants;
    },
  };
}

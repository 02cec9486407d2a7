import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { routesOf } from '@gift/content';
import {
  isRemoteName,
  remoteEntryFile,
  remoteNames,
  remotes,
  type RemoteName,
  type RemotesManifest,
} from '@gift/federation';
import { escapeHtml, safePath } from './preview.ts';
import { ignoredCookieLog } from './ignored-cookies.ts';

/**
 * Local overrides (`pnpm dev:remote <remote> --against <site>`): a developer's browser composes a deployed site with
 * one remote served from their own machine. `GET /__override?remote=&entry=` turns into a cookie for that browser;
 * its pages then load that remote from the local entry and render it in the browser (the site server has no build
 * of it). Honoured in development and on a preview server (SITE_ROLE=preview); in production the link and any such
 * cookie are ignored and logged. Only an entry on this machine's loopback address is ever taken: a link cannot make
 * a visitor run scripts from anywhere else.
 */

export const overridePath = '/__override';
export const endOverridePath = `${overridePath}/end`;

export type SiteRole = 'production' | 'preview' | 'development';

export interface RemoteOverride {
  remote: RemoteName;
  entry: string;
}

/** SITE_ROLE when set, production otherwise: a server honours local overrides only when told to. */
export function siteRoleOf(env: NodeJS.ProcessEnv): SiteRole {
  const role = env.SITE_ROLE;
  if (role === 'production' || role === 'preview' || role === 'development') return role;
  if (role) throw new Error(`SITE_ROLE must be production, preview or development, not "${role}"`);
  return 'production';
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A remote entry on this machine (`http://localhost:5175/remoteEntry.js`), or undefined. */
export function localEntry(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 300) return undefined;
  try {
    const url = new URL(value);
    const local = ['http:', 'https:'].includes(url.protocol) && loopbackHosts.has(url.hostname);
    return local && !url.username && !url.password && url.pathname.endsWith(`/${remoteEntryFile}`) && !url.search
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

export function withOverrides(manifest: RemotesManifest, overrides: RemoteOverride[]): RemotesManifest {
  if (!overrides.length) return manifest;
  const changed = { ...manifest };
  for (const { remote, entry } of overrides) changed[remote] = entry;
  return changed;
}

/** Adds the local entries' origins to a page's Content-Security-Policy, for that browser's page alone. */
export function allowingOverrides(policy: string, overrides: RemoteOverride[]): string {
  const origins = [...new Set(overrides.map(({ entry }) => new URL(entry).origin))].join(' ');
  if (!origins) return policy;
  return policy.replace(/(^|;)(\s*(?:script|style|img|connect)-src [^;]*)/g, `$1$2 ${origins}`);
}

/** The bar an overridden page shows, outside React's part, with a link that ends the override. */
export function overrideBar(overrides: RemoteOverride[], path: string): string {
  const what = overrides.map(({ remote, entry }) => `${remotes[remote].folder} from ${new URL(entry).host}`).join(', ');
  const end = `${endOverridePath}?to=${encodeURIComponent(path)}`;
  return `<aside class="override-bar" aria-label="Local override"><style>.override-bar{background:#0b5c6b;color:#fff;font:0.875rem/1.4 var(--font-body,system-ui),sans-serif;padding:0.4rem 1rem;text-align:center;overflow-wrap:anywhere}.override-bar a{color:#e0f4f1;font-weight:600}</style>Local: ${escapeHtml(what)} · <a href="${escapeHtml(end)}">end</a></aside>`;
}

export interface Overrides {
  /** The overrides a request's cookies ask for, when this server honours them; otherwise none (logged, cleared). */
  overridesOf(request: FastifyRequest, reply: FastifyReply): RemoteOverride[];
}

const cookieName = (remote: RemoteName) => `override-${remotes[remote].folder}`;
const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax' as const };

export function registerOverrides(app: FastifyInstance, role: SiteRole): Overrides {
  const honoured = role !== 'production';
  const ignored = ignoredCookieLog('Remote override ignored');

  app.get(overridePath, async (request, reply) => {
    const { remote, entry } = request.query as Record<string, unknown>;
    const name = typeof remote === 'string' && isRemoteName(remote) ? remote : undefined;
    const local = localEntry(entry);
    const [landing] = name ? routesOf(name).filter((route) => !route.path.includes('*')) : [];
    reply.header('Cache-Control', 'no-store');
    if (!honoured) {
      ignored(request, name ?? 'unknown', 'production');
      return reply.redirect(landing?.path ?? '/', 303);
    }
    if (!name || !local) {
      return reply
        .code(400)
        .send({ error: 'Bad Request', message: 'remote must name a remote, entry a remoteEntry.js on this machine' });
    }
    request.log.info({ remote: name, entry: local }, 'Remote override started');
    return reply.setCookie(cookieName(name), local, cookieOptions).redirect(landing?.path ?? '/', 303);
  });

  app.get(endOverridePath, async (request, reply) => {
    for (const remote of remoteNames) reply.clearCookie(cookieName(remote), cookieOptions);
    return reply
      .header('Cache-Control', 'no-store')
      .redirect(safePath((request.query as Record<string, unknown>).to), 303);
  });

  return {
    overridesOf(request, reply) {
      const overrides: RemoteOverride[] = [];
      for (const remote of remoteNames) {
        const value = request.cookies[cookieName(remote)];
        if (value === undefined) continue;
        const entry = localEntry(value);
        if (honoured && entry) {
          overrides.push({ remote, entry });
          continue;
        }
        ignored(request, remote, honoured ? 'not an entry on this machine' : 'production');
        reply.clearCookie(cookieName(remote), cookieOptions);
      }
      return overrides;
    },
  };
}

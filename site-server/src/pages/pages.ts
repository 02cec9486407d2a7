// pages/: every page the site answers: prerendered, rendered on demand, kept in memory compressed with its ETag.
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { matchRoute, metadataTags, notFoundMetadata, withoutTrailingSlash, type PageRoute } from '@gift/content';
import { manifestElement, remotes, type RemotesManifest } from '@gift/federation';
import type { FormOutcomeCookies, ViewTickets } from 'api';
import { revalidate } from '../remotes/builds.ts';
import { onDemandPages, repeatedFailures } from './on-demand-pages.ts';
import { keptPageForms, sendPageForm, sendPageOnce } from './page-forms.ts';
import { allowingOverrides, overrideBar, withOverrides, type Overrides } from '../previews/overrides.ts';
import { escapeHtml, previewBar, withPreviews, type Previews } from '../previews/preview.ts';
import {
  createPageRenderer,
  notFoundKey,
  prerenderedDir,
  shellServerBuild,
  siteUrlPlaceholder,
  type PrerenderedIndex,
} from './prerender.ts';
import { watchedFile, type WatchedFile } from '../remotes/watched-file.ts';
import { documentPolicy } from '../http/security-headers.ts';
import { allowingImportMap, pageIntegrity, withIntegrity, type PageIntegrity } from './integrity-map.ts';
import { vouch } from './view-tickets.ts';
import type { Splits } from '../ledger/rollouts.ts';
import { isCrawler, type Cohort, type Cohorts } from '../rollouts/cohorts.ts';

/** Seconds a visitor or a cache is asked to wait for a page whose remote has no live build yet. */
const notLiveRetryAfterSeconds = 10;

/** The shell's page for a remote with no live build: its words for a browser without scripts say so, not "needs JavaScript". */
const notLiveYet = (html: string) =>
  html.replace(
    /<noscript>[^<]*<\/noscript>/,
    '<noscript>This page is being published. Please try again in a minute.</noscript>',
  );

/** A manifest's part of a page: its element, its integrity elements, and the page's policy that allows them. */
interface Composed {
  element: string;
  integrity: PageIntegrity;
  key: string;
  policy: string;
}

/**
 * Answers a page: its prerendered HTML when it was rendered with the remote build the manifest names now, a render
 * on request for addresses that vary, a native form post's outcome or a remote released since the prerender,
 * otherwise the shell's HTML; 301 for another spelling of a page's address, 404 for no page. What every visitor of
 * a page gets is kept in memory, compressed once, with an ETag (page-forms.ts); files are read when they change.
 */
export function pageSender({
  root,
  remotesDir,
  remotesBaseUrl,
  remoteOrigins,
  readManifest,
  readSplits,
  cohorts,
  previews,
  overrides,
  formOutcomes,
  tickets,
  log,
  onPage,
}: {
  root: string;
  remotesDir?: string;
  remotesBaseUrl?: string;
  remoteOrigins: string[];
  readManifest: () => Promise<RemotesManifest>;
  /** The staged rollouts under way, and the cohorts of visitors they split. */
  readSplits: () => Splits;
  cohorts: Cohorts;
  previews: Previews;
  overrides: Overrides;
  /** The outcomes of native form posts, signed by the API: none shown without it. */
  formOutcomes?: FormOutcomeCookies;
  /** Hears each page sent: its remote, from memory or made for the request, its status (the metrics). */
  onPage?: (remote: string, source: 'memory' | 'on_demand', status: number) => void;
  /** The API's view tickets: each page view of a remote goes with one, which its field-data report brings back. */
  tickets?: ViewTickets;
  log: FastifyBaseLogger;
}) {
  const indexPath = join(root, 'shell', 'dist', 'index.html');
  // Re-read when the shell is rebuilt or redeployed, so the HTML never points at assets that are gone.
  const indexFile = watchedFile(indexPath, (html) => html);
  const indexHtml = () => {
    const html = indexFile();
    if (html === undefined) throw new Error('The shell is not built: shell/dist/index.html is missing');
    return html;
  };
  indexHtml();
  const pagesDir = prerenderedDir(root);
  const pagesIndex = watchedFile(join(pagesDir, 'pages.json'), (text) => JSON.parse(text) as PrerenderedIndex);
  const pageFiles = new Map<string, WatchedFile<string>>();
  const prerenderedHtml = (file: string) => {
    if (!pageFiles.has(file))
      pageFiles.set(
        file,
        watchedFile(join(pagesDir, file), (html) => html),
      );
    return pageFiles.get(file)!();
  };
  // The shell's HTML named for a page, made once per route (not per address: a share link's route has as many
  // addresses as anyone invents) and shell build; the address goes into it per request.
  const shellPages = new Map<string, { index: string; html: string }>();
  const addressMark = '\u0000address\u0000';
  const shellPage = (key: string, route: PageRoute | undefined) => {
    const index = indexHtml();
    const routeKey = route?.path ?? notFoundKey;
    let known = shellPages.get(routeKey);
    if (known?.index !== index) {
      const metadata = route
        ? { title: route.title, description: route.description, path: addressMark }
        : { ...notFoundMetadata, path: addressMark };
      known = { index, html: index.replace(/<title>[^<]*<\/title>/, metadataTags(metadata, siteUrlPlaceholder)) };
      shellPages.set(routeKey, known);
    }
    return known.html.replaceAll(addressMark, escapeHtml(key));
  };
  const keptPages = keptPageForms({ log });
  // The manifest's elements, made once per manifest (the same object comes back until the file changes): the
  // manifest itself, and what the browser checks its released builds' files against (integrity-map.ts).
  const integrityOf = pageIntegrity({ root, remotesDir, remotesBaseUrl });
  const policy = documentPolicy(remoteOrigins);
  const elements = new WeakMap<RemotesManifest, Composed>();
  const composedOf = (manifest: RemotesManifest, origins = remoteOrigins): Composed => {
    const element = manifestElement(manifest, origins);
    const integrity = integrityOf(manifest);
    // One string for both, compared by identity by the kept pages: the same object while the manifest is.
    return { element, integrity, key: `${element}${integrity.head}`, policy: allowingImportMap(policy, integrity) };
  };
  const elementOf = (manifest: RemotesManifest) => {
    let composed = elements.get(manifest);
    // Made again when the shell's build names another shared-modules file for the import map.
    if (composed === undefined || composed.integrity.sharedModules !== integrityOf.sharedModulesFile()) {
      elements.set(manifest, (composed = composedOf(manifest)));
    }
    return composed;
  };
  // Pages whose content depends on the address (a share link's token) are rendered when asked for, by the
  // same renderer as the prerendered ones; it is made again when the shell is rebuilt.
  const shellBuild = watchedFile(shellServerBuild(root), () => true);
  let renderer: { version: string; made: ReturnType<typeof createPageRenderer> } | undefined;
  const pageRenderer = () => {
    if (!shellBuild()) return undefined;
    const version = `${shellBuild.version()}.${indexFile.version()}`;
    if (renderer?.version !== version) {
      renderer = { version, made: createPageRenderer({ root, remotesDir, remotesBaseUrl }) };
    }
    return renderer;
  };
  const renderedLive = onDemandPages();
  const renderOnRequest = async (
    route: PageRoute,
    path: string,
    request: FastifyRequest,
    manifest: RemotesManifest,
    actionData?: unknown,
  ) => {
    try {
      const made = await pageRenderer()?.made;
      return (await made?.renderPage(route, path, manifest, actionData))?.document;
    } catch (error) {
      // The browser can still render the page: a server-side failure must never cost the visitor the page.
      renderFailed(request.log, route.path, manifest[route.remote], error);
      return undefined;
    }
  };
  const renderFailed = repeatedFailures();

  /**
   * The prerendered HTML of a path, when there is one rendered with the remote build the manifest names now; a
   * page rendered now for addresses that vary, with the outcome of a native form post, or with a version of its
   * remote that this browser previews; a page rendered (once) with the live build of its remote; otherwise the
   * shell's HTML, whose router renders it in the browser. `shared`: the same for every visitor of this address until
   * a build changes, so it may be kept in memory; a page whose content depends on its address (a share link) never
   * is, however it was made, or any invented address would cost a compression and a place in memory.
   */
  const pageHtml = async (
    key: string,
    route: PageRoute | undefined,
    request: FastifyRequest,
    manifest: RemotesManifest,
    {
      formOutcome,
      previewed = false,
      inBrowser = false,
      canary = false,
    }: { formOutcome?: unknown; previewed?: boolean; inBrowser?: boolean; canary?: boolean },
  ): Promise<{ html: string; shared: boolean }> => {
    const shared = !route || route.prerender;
    // A remote served from the developer's machine: this server has no build of it to render with.
    if (inBrowser) return { html: shellPage(key, route), shared: false };
    if ((formOutcome !== undefined || previewed) && route) {
      const rendered = await renderOnRequest(route, key, request, manifest, formOutcome);
      if (rendered) return { html: rendered, shared: false };
    }
    // A previewed page is neither the prerendered one nor kept for the next visitors.
    if (!previewed) {
      const page = pagesIndex()?.[key];
      if (page && (!page.remote || manifest[page.remote] === page.entry)) {
        const html = prerenderedHtml(page.file);
        if (html !== undefined) return { html, shared };
      }
      if (route && !route.prerender) {
        // Rendered per address and never kept; when it fails, the shell's HTML (below), not a second try.
        const rendered = await renderOnRequest(route, key, request, manifest);
        return { html: rendered ?? shellPage(key, route), shared: false };
      }
      // The manifest names a build of the page's remote that was released after the prerender: the page is
      // rendered with it now, once, and kept for the next visitors until the remote or the shell changes again.
      const entry = route && manifest[route.remote];
      if (route && entry) {
        const build = `${entry} ${pageRenderer()?.version}`;
        // A rollout's two cohorts each keep their own render: neither replaces the other's.
        const kept = canary ? `${key}\ncanary` : key;
        const rendered = await renderedLive(kept, build, () => renderOnRequest(route, key, request, manifest));
        if (rendered) return { html: rendered, shared };
      }
    }
    // Rendered in the browser: the head still names the page for search engines and link previews.
    return { html: shellPage(key, route), shared };
  };

  const sendPage = async (path: string, origin: string, request: FastifyRequest, reply: FastifyReply) => {
    const match = matchRoute(path);
    // Another spelling of a page's address (`/PRIVACY`) is sent to the page: one address per page, everywhere.
    if (match && match.canonicalPath !== withoutTrailingSlash(path)) {
      return reply
        .code(301)
        .header('Location', match.canonicalPath + request.url.slice(path.length))
        .send();
    }
    const found = match !== undefined;
    const owner = match ? remotes[match.route.remote].folder : 'none';
    const key = match ? match.canonicalPath : notFoundKey;
    // A form posted natively came back here (Post/Redirect/Get): shown once, never cached, since it holds what
    // the visitor typed.
    const formOutcome = found ? formOutcomes?.read(request, key) : undefined;
    if (formOutcome) formOutcomes?.clear(request, reply, key);
    // A browser with a preview cookie gets the version it previews in place of the live one, with a bar that says so.
    const grants = previews.grantsOf(request, reply);
    const previewed = grants.some((grant) => grant.remote === match?.route.remote);
    // A developer's browser may compose the site with a remote from its own machine (`pnpm dev:remote`).
    const local = overrides.overridesOf(request, reply);
    const inBrowser = local.some((override) => override.remote === match?.route.remote);
    // A visitor in a rollout's canary gets its new version; a preview or an override wins over the cohort.
    const cohort: Cohort = cohorts.ofPage(request, reply, await readManifest(), readSplits());
    const canary = match !== undefined && cohort.canary.has(match.route.remote);
    // The page carries the manifest it was chosen by, so that its scripts need not ask for it before they start.
    const manifest = withOverrides(withPreviews(cohort.manifest, grants, remotesBaseUrl), local);
    // The shell loads remote code only from the origins this element names: a local entry's origin joins them.
    const composed = local.length
      ? composedOf(manifest, [...remoteOrigins, ...local.map(({ entry }) => new URL(entry).origin)])
      : elementOf(manifest);
    const { element, integrity } = composed;
    // No live build of the page's remote yet (a server that has not read a release of it): a page without its part
    // is not the page. 503, to be asked again shortly, and kept by no cache.
    if (match && manifest[match.route.remote] === undefined) {
      onPage?.(owner, 'on_demand', 503);
      return reply
        .code(503)
        .header('Retry-After', String(notLiveRetryAfterSeconds))
        .header('Cache-Control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(notLiveYet(shellPage(key, match.route)));
    }
    const page = await pageHtml(key, match?.route, request, manifest, { formOutcome, previewed, inBrowser, canary });
    const bars = `${grants.length ? previewBar(grants, path) : ''}${local.length ? overrideBar(local, path) : ''}`;
    const make = () => {
      const html = withIntegrity(
        page.html.replaceAll(siteUrlPlaceholder, origin).replace('</head>', `${element}</head>`),
        integrity,
      );
      return bars ? html.replace(/<body([^>]*)>/, (body) => `${body}${bars}`) : html;
    };
    // The page's own policy: its import map allowed by its hash, and the origins of a developer's local remotes.
    reply.header('Content-Security-Policy', local.length ? allowingOverrides(composed.policy, local) : composed.policy);
    const personal = grants.length > 0 || local.length > 0;
    // A crawler's view is in no arm's figures: it gets no ticket.
    if (match && !isCrawler(request)) vouch(tickets, request, reply, match.route, manifest);
    reply
      .code(found ? 200 : 404)
      // What one browser previews or overrides is for it alone: never kept by a cache, shared or its own.
      .header('Cache-Control', personal ? 'private, no-store' : formOutcome ? 'no-store' : revalidate)
      // Beside what `withOrigin` said about Host: the page also shows a native form post's outcome, from cookies.
      .header('Vary', [reply.getHeader('Vary'), 'Cookie'].filter(Boolean).join(', '))
      .type('text/html; charset=utf-8');
    if (page.shared && !personal && formOutcome === undefined) {
      // One kept page per cohort: its element names its own versions of every remote.
      const kept = `${origin}\n${key}${cohort.key ? `\n${cohort.key}` : ''}`;
      const sent = sendPageForm(request, reply, await keptPages.formsOf(kept, page.html, composed.key, make));
      onPage?.(owner, 'memory', reply.statusCode);
      return sent;
    }
    onPage?.(owner, 'on_demand', reply.statusCode);
    return sendPageOnce(request, reply, make());
  };

  return sendPage;
}

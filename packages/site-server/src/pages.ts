import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchRoute, metadataTags, notFoundMetadata, withoutTrailingSlash, type PageRoute } from '@gift/content';
import { manifestElement, type RemotesManifest } from '@gift/federation';
import type { FormOutcomeCookies } from 'api';
import { cachedRead, revalidate } from './builds.ts';
import { onDemandPages } from './on-demand-pages.ts';
import { previewBar, withPreviews, type Previews } from './preview.ts';
import {
  createPageRenderer,
  notFoundKey,
  prerenderedDir,
  shellServerBuild,
  siteUrlPlaceholder,
  type PrerenderedIndex,
} from './prerender.ts';

/**
 * Answers a page: its prerendered HTML when it was rendered with the remote build the manifest names now, a render
 * on request for addresses that vary, a native form post's outcome or a remote released since the prerender,
 * otherwise the shell's HTML; 301 for another spelling of a page's address, 404 for no page.
 */
export function pageSender({
  root,
  remotesDir,
  remotesBaseUrl,
  remoteOrigins,
  readManifest,
  previews,
  formOutcomes,
}: {
  root: string;
  remotesDir?: string;
  remotesBaseUrl?: string;
  remoteOrigins: string[];
  readManifest: () => Promise<RemotesManifest>;
  previews: Previews;
  /** The outcomes of native form posts, signed by the API: none shown without it. */
  formOutcomes?: FormOutcomeCookies;
}) {
  const indexPath = join(root, 'shell', 'dist', 'index.html');
  // Re-read when the shell is rebuilt or redeployed, so the HTML never points at assets that are gone.
  const indexHtml = cachedRead(indexPath, (html) => html);
  indexHtml();
  const pagesDir = prerenderedDir(root);
  const pagesIndexPath = join(pagesDir, 'pages.json');
  const pagesIndex = cachedRead(pagesIndexPath, (text) => JSON.parse(text) as PrerenderedIndex);
  const pageFiles = new Map<string, () => string>();
  const prerenderedHtml = (file: string) => {
    if (!pageFiles.has(file))
      pageFiles.set(
        file,
        cachedRead(join(pagesDir, file), (html) => html),
      );
    return pageFiles.get(file)!();
  };
  // Pages whose content depends on the address (a share link's token) are rendered when asked for, by the
  // same renderer as the prerendered ones; it is made again when the shell is rebuilt.
  const shellBuild = shellServerBuild(root);
  let renderer: { version: number; made: ReturnType<typeof createPageRenderer> } | undefined;
  const pageRenderer = () => {
    if (!existsSync(shellBuild)) return undefined;
    const version = statSync(shellBuild).mtimeMs + statSync(indexPath).mtimeMs;
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
      request.log.error({ err: error, path: route.path }, 'Rendering a page on the server failed');
      return undefined;
    }
  };

  /**
   * The prerendered HTML of a path, when there is one rendered with the remote build the manifest names now; a
   * page rendered now for addresses that vary, with the outcome of a native form post, or with a version of its
   * remote that this browser previews; a page rendered (once) with the live build of its remote; otherwise the
   * shell's HTML, whose router renders it in the browser.
   */
  const pageHtml = async (
    key: string,
    route: PageRoute | undefined,
    request: FastifyRequest,
    manifest: RemotesManifest,
    { formOutcome, previewed = false }: { formOutcome?: unknown; previewed?: boolean },
  ) => {
    if ((formOutcome !== undefined || previewed) && route) {
      const rendered = await renderOnRequest(route, key, request, manifest, formOutcome);
      if (rendered) return rendered;
    }
    // A previewed page is neither the prerendered one nor kept for the next visitors.
    if (!previewed) {
      const page = existsSync(pagesIndexPath) ? pagesIndex()[key] : undefined;
      if (page && (!page.remote || manifest[page.remote] === page.entry)) return prerenderedHtml(page.file);
      if (route && !route.prerender) {
        const rendered = await renderOnRequest(route, key, request, manifest);
        if (rendered) return rendered;
      }
      // The manifest names a build of the page's remote that was released after the prerender: the page is
      // rendered with it now, once, and kept for the next visitors until the remote or the shell changes again.
      const entry = route && manifest[route.remote];
      if (route && entry) {
        const build = `${entry} ${pageRenderer()?.version}`;
        const rendered = await renderedLive(key, build, () => renderOnRequest(route, key, request, manifest));
        if (rendered) return rendered;
      }
    }
    // Rendered in the browser: the head still names the page for search engines and link previews.
    const metadata = route
      ? { title: route.title, description: route.description, path: key }
      : { ...notFoundMetadata, path: key };
    return indexHtml().replace(/<title>[^<]*<\/title>/, metadataTags(metadata, siteUrlPlaceholder));
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
    const key = match ? match.canonicalPath : notFoundKey;
    // A form posted natively came back here (Post/Redirect/Get): shown once, never cached, since it holds what
    // the visitor typed.
    const formOutcome = found ? formOutcomes?.read(request, key) : undefined;
    if (formOutcome) formOutcomes?.clear(request, reply, key);
    // A browser with a preview cookie gets the version it previews in place of the live one, with a bar that says so.
    const grants = previews.grantsOf(request, reply);
    const previewed = grants.some((grant) => grant.remote === match?.route.remote);
    // The page carries the manifest it was chosen by, so that its scripts need not ask for it before they start.
    const manifest = withPreviews(await readManifest(), grants, remotesBaseUrl);
    let html = (await pageHtml(key, match?.route, request, manifest, { formOutcome, previewed }))
      .replaceAll(siteUrlPlaceholder, origin)
      .replace('</head>', `${manifestElement(manifest, remoteOrigins)}</head>`);
    if (grants.length) html = html.replace(/<body([^>]*)>/, (body) => `${body}${previewBar(grants, path)}`);
    return (
      reply
        .code(found ? 200 : 404)
        // What one browser previews is for it alone: never kept by a cache, shared or its own.
        .header('Cache-Control', grants.length ? 'private, no-store' : formOutcome ? 'no-store' : revalidate)
        // Beside what `withOrigin` said about Host: the page also shows a native form post's outcome, from cookies.
        .header('Vary', [reply.getHeader('Vary'), 'Cookie'].filter(Boolean).join(', '))
        .type('text/html; charset=utf-8')
        .send(html)
    );
  };

  return sendPage;
}

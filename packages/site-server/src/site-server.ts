import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import {
  matchRoute,
  metadataTags,
  notFoundMetadata,
  pageRoutes,
  withoutTrailingSlash,
  type PageRoute,
} from '@gift/content';
import { apiPrefix } from '@gift/contracts';
import { manifestElement, manifestPath, remoteEntryFile, remotes, type RemotesManifest } from '@gift/federation';
import { apiPlugin, clearOutcome, httpServerOptions, readOutcome, trustedHops, type ApiConfig, type Db } from 'api';
import {
  createPageRenderer,
  notFoundKey,
  prerenderedDir,
  shellServerBuild,
  siteUrlPlaceholder,
  type PrerenderedIndex,
} from './prerender.ts';
import { addTransportHeaders, helmetOptions } from './security-headers.ts';

export interface SiteServerOptions {
  /** Workspace root: the shell's and remotes' `dist` folders are read from here. */
  root: string;
  /** Serve deployed remote builds from this folder at `/remotes/` instead of the workspace's `dist` folders. */
  remotesDir?: string;
  /** A remotes manifest file, read on every request, so repointing a remote needs no restart. */
  manifestFile?: string;
  logger?: FastifyServerOptions['logger'];
  /** The API service, mounted at `/api` on the same origin. */
  api?: { db: Db; config: ApiConfig };
  /** X-Forwarded-* hops to believe: a number of proxies in front, or their addresses (see the API's config). */
  trustProxy?: false | number | string;
  /** Origins remotes may be loaded from besides this one (a CDN); the CSP allows exactly these. */
  remoteOrigins?: string[];
  /** Longest a client may take to send a whole request; the API's setting when the API is mounted. */
  requestTimeoutMs?: number;
  /** Public origin of the site (canonical URLs, sitemap). Required in production; see `siteHosts` otherwise. */
  siteUrl?: string;
  /**
   * Without `siteUrl` (on a developer's machine): the host names whose Host header may name the site in its pages,
   * with any port. Any other Host is answered 421 on a page, never written into it.
   */
  siteHosts?: string[];
}

export const defaultSiteHosts = ['localhost', '127.0.0.1', '[::1]'];

/** The configured public origin, checked: scheme, host and port, nothing that could leave an attribute. */
export function siteOrigin(url: string): string {
  const origin = URL.canParse(url) ? new URL(url).origin : '';
  if (!/^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/.test(origin)) {
    throw new Error(`PUBLIC_SITE_URL must be an http(s) address of the site, got "${url}"`);
  }
  return origin;
}

const hostHeader = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const immutable = 'public, max-age=31536000, immutable';
const revalidate = 'no-cache';

function setCacheHeaders(reply: FastifyReply, filePath: string) {
  // Vite puts content-hashed files under assets/; everything else (HTML, remoteEntry.js) must be revalidated.
  reply.header('Cache-Control', filePath.includes(`${sep}assets${sep}`) ? immutable : revalidate);
}

/** A file's contents, read again only when it changes on disk. */
function cachedRead<T>(path: string, parse: (text: string) => T): () => T {
  let cache: { mtimeMs: number; value: T } | undefined;
  return () => {
    const { mtimeMs } = statSync(path);
    if (cache?.mtimeMs !== mtimeMs) cache = { mtimeMs, value: parse(readFileSync(path, 'utf8')) };
    return cache.value;
  };
}

const contentVersion = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 10);

/**
 * Remotes built in this workspace, with the URL their entry is served at. The entry URL carries the build's
 * version, so a rebuilt remote has a new address and a page prerendered with the old one is not served.
 */
export function builtRemotes(root: string) {
  return Object.entries(remotes)
    .map(([name, remote]) => {
      const dist = join(root, remote.folder, 'dist');
      const version = cachedRead(join(dist, remoteEntryFile), contentVersion);
      return {
        name,
        dist,
        entry: () => `/remotes/${remote.folder}/${remoteEntryFile}?v=${version()}`,
        prefix: `/remotes/${remote.folder}/`,
      };
    })
    .filter((remote) => existsSync(join(remote.dist, remoteEntryFile)));
}

/** The manifest that points at built remotes, as their builds are now. */
const manifestOf = (built: ReturnType<typeof builtRemotes>): RemotesManifest =>
  Object.fromEntries(built.map((remote) => [remote.name, remote.entry()]));

/** The manifest of the remotes built in this workspace. */
export const localManifest = (root: string) => manifestOf(builtRemotes(root));

/** Build outputs that are never served: the server-side bundles used for prerendering. */
const notServed = (pathName: string) => !/(^|\/)ssr\//.test(pathName);

/** The composed site on one origin: the shell, each remote's build under `/remotes/`, the manifest. */
export async function createSiteServer(options: SiteServerOptions): Promise<FastifyInstance> {
  const shellDist = join(options.root, 'shell', 'dist');
  const indexPath = join(shellDist, 'index.html');
  // Re-read when the shell is rebuilt or redeployed, so the HTML never points at assets that are gone.
  const indexHtml = cachedRead(indexPath, (html) => html);
  indexHtml();
  const pagesDir = prerenderedDir(options.root);
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
  const limits = { requestTimeoutMs: options.requestTimeoutMs ?? options.api?.config.requestTimeoutMs ?? 10_000 };
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: trustedHops(options.trustProxy ?? false),
    ...httpServerOptions(limits),
  });

  await app.register(compress, {
    global: true,
    threshold: 1024,
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } },
  });

  await app.register(helmet, helmetOptions(options.remoteOrigins ?? []));
  app.addHook('onSend', async (request, reply) => {
    addTransportHeaders(request, reply);
    reply.header('X-Request-Id', request.id);
  });

  if (options.api) await app.register(apiPlugin, { prefix: apiPrefix, ...options.api });

  const staticOptions = {
    index: false,
    cacheControl: false,
    setHeaders: setCacheHeaders,
    allowedPath: notServed,
    // The builds write a Brotli copy of each text file (`file.js.br`); it is sent as is.
    preCompressed: true,
  } as const;
  await app.register(fastifyStatic, { ...staticOptions, root: shellDist, prefix: '/' });

  const local = builtRemotes(options.root);
  if (options.remotesDir) {
    await app.register(fastifyStatic, {
      ...staticOptions,
      root: options.remotesDir,
      prefix: '/remotes/',
      decorateReply: false,
    });
  } else {
    for (const remote of local) {
      await app.register(fastifyStatic, {
        ...staticOptions,
        root: remote.dist,
        prefix: remote.prefix,
        decorateReply: false,
      });
    }
  }

  const readManifest = async (): Promise<RemotesManifest> =>
    options.manifestFile ? JSON.parse(await readFile(options.manifestFile, 'utf8')) : manifestOf(local);
  app.get(manifestPath, async (_request, reply) =>
    reply.header('Cache-Control', 'no-cache').send(await readManifest()),
  );

  // The origin written into pages (canonical, og:url, og:image, JSON-LD), robots.txt and the sitemap: the
  // configured one, or on a developer's machine a Host header from the allowed list. Never a header as it came.
  const configuredOrigin = options.siteUrl ? siteOrigin(options.siteUrl) : undefined;
  const siteHosts = new Set((options.siteHosts ?? defaultSiteHosts).map((host) => host.toLowerCase()));
  const originOf = (request: FastifyRequest): string | undefined => {
    if (configuredOrigin) return configuredOrigin;
    const host = (request.headers.host ?? '').toLowerCase();
    const name = hostHeader.exec(host)?.[1];
    if (!name || !siteHosts.has(name)) return undefined;
    return `${request.protocol === 'https' ? 'https' : 'http'}://${host}`;
  };
  /** Sends what `write` makes with the site's origin, or 421 when the Host header names no site served here. */
  const withOrigin =
    (write: (origin: string, request: FastifyRequest, reply: FastifyReply) => unknown) =>
    (request: FastifyRequest, reply: FastifyReply) => {
      const origin = originOf(request);
      // What the answer says depends on the Host header only when no public address is configured.
      if (!configuredOrigin) reply.header('Vary', 'Host');
      if (origin) return write(escapeHtml(origin), request, reply);
      return reply
        .code(421)
        .type('text/plain; charset=utf-8')
        .send('This server does not answer for that host name. Set PUBLIC_SITE_URL, or list the host in SITE_HOSTS.');
    };

  // Pages whose content depends on the address (a share link's token) are rendered when asked for, by the
  // same renderer as the prerendered ones; it is made again when the shell is rebuilt.
  const shellBuild = shellServerBuild(options.root);
  let renderer: { version: number; made: ReturnType<typeof createPageRenderer> } | undefined;
  const pageRenderer = () => {
    if (!existsSync(shellBuild)) return undefined;
    const version = statSync(shellBuild).mtimeMs + statSync(indexPath).mtimeMs;
    if (renderer?.version !== version) {
      renderer = { version, made: createPageRenderer({ root: options.root, remotesDir: options.remotesDir }) };
    }
    return renderer.made;
  };
  const renderOnRequest = async (
    route: PageRoute,
    path: string,
    request: FastifyRequest,
    manifest: RemotesManifest,
    actionData?: unknown,
  ) => {
    try {
      const made = await pageRenderer();
      return (await made?.renderPage(route, path, manifest, actionData))?.document;
    } catch (error) {
      // The browser can still render the page: a server-side failure must never cost the visitor the page.
      request.log.error({ err: error, path: route.path }, 'Rendering a page on the server failed');
      return undefined;
    }
  };

  /**
   * The prerendered HTML of a path, when there is one rendered with the remote build the manifest names now; a
   * page rendered now for addresses that vary, or with the outcome of a native form post; otherwise the shell's
   * HTML, whose router renders it in the browser.
   */
  const pageHtml = async (
    key: string,
    route: PageRoute | undefined,
    request: FastifyRequest,
    manifest: RemotesManifest,
    formOutcome?: unknown,
  ) => {
    if (formOutcome !== undefined && route) {
      const rendered = await renderOnRequest(route, key, request, manifest, formOutcome);
      if (rendered) return rendered;
    }
    const page = existsSync(pagesIndexPath) ? pagesIndex()[key] : undefined;
    if (page && (!page.remote || manifest[page.remote] === page.entry)) return prerenderedHtml(page.file);
    if (route && !route.prerender) {
      const rendered = await renderOnRequest(route, key, request, manifest);
      if (rendered) return rendered;
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
    const formOutcome = found ? readOutcome(request) : undefined;
    if (formOutcome) clearOutcome(request, reply, key);
    // The page carries the manifest it was chosen by, so that its scripts need not ask for it before they start.
    const manifest = await readManifest();
    const html = (await pageHtml(key, match?.route, request, manifest, formOutcome))
      .replaceAll(siteUrlPlaceholder, origin)
      .replace('</head>', `${manifestElement(manifest)}</head>`);
    return reply
      .code(found ? 200 : 404)
      .header('Cache-Control', formOutcome ? 'no-store' : revalidate)
      .header('Vary', configuredOrigin ? 'Cookie' : 'Cookie, Host')
      .type('text/html; charset=utf-8')
      .send(html);
  };

  app.get(
    '/robots.txt',
    withOrigin((origin, _request, reply) =>
      reply.type('text/plain; charset=utf-8').send(`User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`),
    ),
  );

  // The pages the route table lists for search engines.
  const listedPaths = pageRoutes.filter((route) => route.inSitemap).map((route) => route.path);
  app.get(
    '/sitemap.xml',
    withOrigin((origin, _request, reply) => {
      const urls = listedPaths.map((path) => `  <url><loc>${origin}${path}</loc></url>`).join('\n');
      return reply
        .type('application/xml; charset=utf-8')
        .send(
          `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`,
        );
    }),
  );

  app.get(
    '/',
    withOrigin((origin, request, reply) => sendPage('/', origin, request, reply)),
  );

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !/\.[a-z0-9]+$/i.test(path);
    if (!wantsPage || path.startsWith(`${apiPrefix}/`) || path.startsWith('/remotes/')) {
      return reply.code(404).send({ error: 'Not Found', message: `No resource at ${path}` });
    }
    return withOrigin((origin) => sendPage(path, origin, request, reply))(request, reply);
  });

  return app;
}

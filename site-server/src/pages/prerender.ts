import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ComponentType } from 'react';
import {
  metadataTags,
  notFoundMetadata,
  notFoundPrerenderedRoute,
  organizationJsonLd,
  pageRoutes,
  paths,
  type PageRoute,
} from '@gift/content';
import {
  integrityFile,
  pageModulesFile,
  remoteEntryFile,
  remoteServedAt,
  remotes,
  sharedModulesIndex,
  ssrOutDir,
  type PageModules,
  type RemoteName,
  type RemotesManifest,
} from '@gift/federation';
import { earlyScriptTag, startScript } from './early-script.ts';
import { resolveSharedModules } from './shared-modules.ts';
import { defaultRemotesBaseUrl } from '../ledger/versions.ts';
import { isBuildStylesheet } from '../remotes/build-cache.ts';

/** The shell's server build, which renders the routes. */
export const shellServerBuild = (root: string) => join(root, 'shell', ssrOutDir, 'prerender.js');

/** Where prerendered pages are written, and the index the site server reads them by. */
export const prerenderedDir = (root: string) => join(root, 'shell', 'dist-pages');
export const siteUrlPlaceholder = '%SITE_URL%';

/** One prerendered page: its file, and the remote build it was rendered with. */
export interface PrerenderedPage {
  file: string;
  status: number;
  remote?: RemoteName;
  entry?: string;
}
export type PrerenderedIndex = Record<string, PrerenderedPage>;

interface ShellServerBuild {
  renderPage(
    url: string,
    load: (route: PageRoute) => Promise<{ ok: true; Page: ComponentType } | { ok: false; reason: 'failed' }>,
    actionData?: unknown,
  ): Promise<{ status: number; html: string }>;
}

export interface FederationManifest {
  exposes: {
    path: string;
    assets: { js: { sync: string[]; async: string[] }; css: { sync: string[]; async?: string[] } };
  }[];
}

/** Pages whose content depends on the address alone (the route table says which). */
export const prerenderedRoutes = pageRoutes.filter((route) => route.prerender);

export const notFoundKey = '404';

/**
 * The folder a remote's entry URL is served from, on disk: a local build, or a deploy under REMOTES_DIR, which is
 * served at `remotesBaseUrl` (by this server, or by a CDN that publishes the same folder).
 */
export function remoteFolderOnDisk(
  root: string,
  remote: RemoteName,
  entry: string,
  remotesDir?: string,
  remotesBaseUrl = defaultRemotesBaseUrl,
) {
  const path = entry.split('?')[0]!;
  if (remotesDir) {
    if (!path.startsWith(remotesBaseUrl) || !path.endsWith(`/${remoteEntryFile}`)) return undefined;
    const relative = path.slice(remotesBaseUrl.length, -remoteEntryFile.length);
    return relative.split('/').includes('..') ? undefined : join(remotesDir, relative);
  }
  return path === `${remoteServedAt(remote)}${remoteEntryFile}`
    ? join(root, remotes[remote].folder, 'dist')
    : undefined;
}

/** Imports a build's module as it is on disk now, not as an earlier prerender in this process saw it. */
const importFresh = (file: string) => import(`${pathToFileURL(file).href}?v=${statSync(file).mtimeMs}`);

/**
 * A render that failed inside a Suspense boundary leaves it to the browser; React's development build also writes the
 * error's message and stack (with the server's paths) into the page. Visitors never see them: the log has them.
 */
export const withoutServerErrors = (html: string) => html.replace(/ data-(?:msg|stck|cstck)="[^"]*"/g, '');

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** A published build's Subresource Integrity by path (its `integrity.json`); none for a workspace's own build. */
export function integrityOf(folder: string): Record<string, string> {
  const file = join(folder, integrityFile);
  if (!existsSync(file)) return {};
  const integrity = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(integrity).filter(
      (pair): pair is [string, string] =>
        typeof pair[1] === 'string' && /^sha(256|384|512)-[A-Za-z0-9+/=]+$/.test(pair[1]),
    ),
  );
}

/** The attributes that make the browser check a file against its recorded hash (CORS on a CDN). */
const integrityAttributes = (value: string | undefined) =>
  value ? ` integrity="${value}" crossorigin="anonymous"` : '';

/**
 * A stylesheet in the page itself: the first paint waits for no other request (on a phone's line a stylesheet was a
 * round trip of its own, 150-250 ms, between the page's arrival and its paint).
 */
const inlineStyle = (css: string) => `<style>${css.replace(/<\/style/gi, '<\\/style')}</style>`;

/** Whether `bytes` are what a recorded Subresource Integrity (`sha256-...`, `sha384-...`, `sha512-...`) names. */
const matchesIntegrity = (bytes: Buffer, integrity: string) => {
  const [algorithm, digest] = integrity.split('-', 2) as [string, string];
  return createHash(algorithm).update(bytes).digest('base64') === digest;
};

/**
 * A remote's stylesheet, in the page when its build on disk has it, with a disabled link to the same file: the
 * remote's scripts, which load a page's stylesheet before its module, find it there and fetch nothing (a disabled
 * stylesheet is never fetched). Without the file (a server build fetched before stylesheets were part of it), or with
 * bytes other than its release recorded, the link with its integrity, as before: the browser checks it.
 */
export function remoteStylesheet(folder: string, css: string, href: string, integrity: string | undefined) {
  const file = join(folder, css);
  // Only a build's own stylesheets, as a server build from a CDN holds them: a manifest cannot name another file.
  const bytes = isBuildStylesheet(css) && existsSync(file) ? readFileSync(file) : undefined;
  if (!bytes || (integrity && !matchesIntegrity(bytes, integrity)))
    return `<link rel="stylesheet" href="${escapeAttribute(href)}"${integrityAttributes(integrity)} />`;
  return `${inlineStyle(bytes.toString('utf8'))}<link rel="stylesheet" href="${escapeAttribute(href)}" disabled />`;
}

/** A page as a whole HTML document, and the remote build it was rendered with. */
export interface RenderedPage {
  document: string;
  status: number;
  entry?: string;
}

/** A chunk of a Vite build manifest (`dist/.vite/manifest.json`). */
interface ViteManifestChunk {
  file: string;
  imports?: string[];
}

/** A chunk's file and the files of every chunk it imports statically, as the page's root-relative URLs. */
function withStaticImports(manifest: Record<string, ViteManifestChunk>, key: string): string[] {
  const files = new Set<string>();
  const visit = (next: string) => {
    const chunk = manifest[next];
    if (!chunk || files.has(`/${chunk.file}`)) return;
    files.add(`/${chunk.file}`);
    chunk.imports?.forEach(visit);
  };
  visit(key);
  return [...files];
}

/**
 * What a page needs of the shell to start without the federation runtime (issue 79), when the shell's build has it:
 * its app's entry and the chunks that entry imports, the module that gives page modules the shared modules
 * (`sharedModulesFacade`) with its chunks, and the federation runtime's host init, which the app imports later.
 */
export interface ShellStart {
  entry: string;
  chunks: string[];
  /** React's chunk (the federation plugin's `loadShare-eager`), evaluated in a task of its own first. */
  react: string[];
  sharedModules: { file: string; specifiers: string[] };
  hostInit?: string;
}

export function shellStart(root: string, manifest: Record<string, ViteManifestChunk>): ShellStart | undefined {
  const indexFile = join(root, 'shell', 'dist', sharedModulesIndex);
  const app = manifest['index.html'];
  if (!existsSync(indexFile) || !app) return undefined;
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { file: string; specifiers: string[] };
  const facadeKey = Object.keys(manifest).find((key) => manifest[key]!.file === index.file);
  const hostInit = Object.values(manifest).find((chunk) => /hostInit/.test(chunk.file))?.file;
  const chunks = [
    ...new Set([
      ...withStaticImports(manifest, 'index.html'),
      ...(facadeKey ? withStaticImports(manifest, facadeKey) : []),
    ]),
  ];
  return {
    entry: `/${app.file}`,
    chunks,
    react: chunks.filter((chunk) => /\/loadShare-eager-/.test(chunk)),
    sharedModules: { file: `/${index.file}`, specifiers: index.specifiers },
    hostInit: hostInit && `/${hostInit}`,
  };
}

/** A build's page modules (`page-modules.json`, pageModulesConfig in @gift/federation), if it has them. */
export function pageModulesOf(folder: string): PageModules | undefined {
  const file = join(folder, pageModulesFile);
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PageModules) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every chunk the shell runs before it can render anything: its entry's static imports, and the federation
 * runtime's own entries (host init, shared modules, the host's container), which the runtime imports one after
 * the other at start. Preloaded together, they arrive in one round of requests instead of a chain of them.
 */
export function shellStartupChunks(manifest: Record<string, ViteManifestChunk>): string[] {
  const keys = Object.keys(manifest).filter((key) => key === 'index.html' || key.startsWith('virtual:mf'));
  return [...new Set(keys.flatMap((key) => withStaticImports(manifest, key)))].filter((file) => file.endsWith('.js'));
}

/**
 * The shell's chunks that the start script evaluates one per task before the entry (issue 60), in the order the
 * entry would: React and the other shared libraries (the federation plugin's `loadShare-eager` chunk), the
 * federation runtime, the map of shared modules (whose evaluation runs react-dom's), the shell's federation entry
 * (whose start the entry then calls). Evaluated by the entry's first import, all four and the runtime's start took
 * one task of 200-450 ms on the phone profile.
 */
export function evaluatedFirst(shellChunks: string[]): string[] {
  const order = [
    /\/loadShare-eager-[^/]*\.js$/,
    /\/assets\/federation-[^/]*\.js$/,
    /\/_virtual_mf-localSharedImportMap[^/]*\.js$/,
    /^\/remoteEntry-[^/]*\.js$/,
  ];
  return order.flatMap((pattern) => shellChunks.filter((chunk) => pattern.test(chunk)));
}

/** The empty element after a page's markup that its first paint waits for (`rel=expect`). */
const markupEnd = 'markup-end';

/**
 * Renders pages of the composed site to HTML documents: the shell's routes from its server build, each page from
 * its remote's server build, in the shell's HTML with the page's metadata and its remote's CSS. The head preloads
 * every script the page runs at start (the shell's, the page's module or the remote's entry, the page's chunks), all
 * at once and without a chain; the start script at the end of the body evaluates them once the page has painted.
 */
export async function createPageRenderer(options: { root: string; remotesDir?: string; remotesBaseUrl?: string }) {
  const { root, remotesDir, remotesBaseUrl } = options;
  resolveSharedModules();
  const template = readFileSync(join(root, 'shell', 'dist', 'index.html'), 'utf8');
  const shell = (await importFresh(shellServerBuild(root))) as ShellServerBuild;

  // The shell's entry, which Vite's HTML names (the federation plugin writes it, outside the build manifest).
  const shellEntry = template.match(/<script type="module" crossorigin src="([^"]+)"><\/script>/)?.[1];
  if (!shellEntry) throw new Error("shell/dist/index.html has no module script: is the shell's build complete?");
  const lean = template
    .replace(/<script type="module" crossorigin src="[^"]+"><\/script>\s*/, '')
    .replace(/<link rel="modulepreload" crossorigin href="[^"]+">\s*/g, '')
    .replace(/<title>[^<]*<\/title>\s*/, '')
    .replace(/<link rel="stylesheet" crossorigin href="\/([^"]+\.css)">/g, (_, file: string) =>
      inlineStyle(readFileSync(join(root, 'shell', 'dist', file), 'utf8')),
    )
    // The shell's note for browsers without JavaScript is for pages that need it to show anything.
    .replace(/<noscript>[^<]*<\/noscript>\s*/, '');
  // The headings' face (tokens.css), asked for with the document's first bytes so that it is there for the first paint.
  const headingFont = lean.match(/url\((\/assets\/inter-headings-700-[\w-]+\.woff2)\)/)?.[1];
  const fontPreload = headingFont
    ? `<link rel="preload" as="font" type="font/woff2" crossorigin href="${escapeAttribute(headingFont)}" />`
    : '';

  const viteManifest = JSON.parse(
    readFileSync(join(root, 'shell', 'dist', '.vite', 'manifest.json'), 'utf8'),
  ) as Record<string, ViteManifestChunk>;
  const shellChunks = shellStartupChunks(viteManifest);
  const shellFirst = evaluatedFirst(shellChunks);
  const direct = shellStart(root, viteManifest);
  /**
   * The start of a page without the federation runtime (issue 79): React's chunk, then (for a page module) the shared
   * modules' module, are evaluated a task each, then the shell's app; `files` (a page module's) are preloaded beside
   * the shell's chunks. The page's module is not evaluated first: the shell's app starts while a late remote's code
   * is on its way, and imports it (preloaded) when it is there.
   */
  const directStart = ({ entry, chunks, react, sharedModules }: ShellStart, files: string[]): Start => ({
    entry,
    first: [...react, ...(files.length ? [sharedModules.file] : [])],
    preload: [...new Set([...chunks, ...files])],
  });

  /** How the page's scripts start: the entry the start script runs, what it evaluates first, what it preloads. */
  interface Start {
    entry: string;
    first: string[];
    preload: string[];
  }
  const federated = (preloads: string[]): Start => ({
    entry: shellEntry,
    first: shellFirst,
    preload: [...new Set([...shellChunks, ...preloads])],
  });

  const toDocument = (
    html: string,
    head: string[],
    rootAttributes: Record<string, string>,
    { entry, first, preload: scripts }: Start,
    integrity: Record<string, string> = {},
  ) => {
    const attributes = Object.entries(rootAttributes)
      .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
      .join('');
    // Every script the page runs at start, asked for by the browser's preload scanner as soon as it reads them (no
    // script needed), with the integrity its release recorded. At the body's end, after the page's markup, rather
    // than in the head (phone profile: first paint up to 0.1x the floor's sooner on the lighter pages, no change
    // measurable on `/`; hydration no later). The first paint does not wait for the document's end; what these
    // requests cost it is their share of a slow line while the page is parsed and painted (docs/performance.md).
    const preloads = [entry, ...scripts.filter((url) => url !== entry)]
      .map(
        (url) =>
          `<link rel="modulepreload" crossorigin fetchpriority="low" href="${escapeAttribute(url)}"${
            integrity[url] ? ` integrity="${escapeAttribute(integrity[url])}"` : ''
          } />`,
      )
      .join('');
    const start = `<script data-entry="${escapeAttribute(entry)}" data-first="${escapeAttribute(
      first.join(' '),
    )}">${startScript}</script>`;
    // What the page preloads (React writes it before its markup: the first screen's images) goes first in the head,
    // before the styles: the browser asks for it as soon as the document's first bytes arrive. Before it, rendering
    // held until the page's markup is parsed (`rel=expect`, where the browser has it): on a slow phone the parser
    // spends its first 10 ms on the head's styles, and the frame it then yields to would be an empty one. Its target
    // is an empty element after the markup, not the markup's own `#root`: Chromium lets rendering go once the target
    // is in the document, and with `#root` a parser that yielded mid-page (a busy phone, or bytes that came in two
    // parts) painted half a page: the store buttons side by side, then one under the other (a layout shift of 0.0155).
    const preloaded = html.match(/^(?:<link rel="preload"[^>]*\/>)+/)?.[0] ?? '';
    return lean
      .replace(
        /<meta charset="UTF-8" \/>/,
        (charset) =>
          `${charset}\n    <link rel="expect" href="#${markupEnd}" blocking="render" />${preloaded}${fontPreload}`,
      )
      .replace('</head>', `  ${[earlyScriptTag, ...head].join('\n    ')}\n  </head>`)
      .replace(
        '<div id="root"></div>',
        `<div id="root"${attributes}>${html.slice(preloaded.length)}</div><template id="${markupEnd}"></template>`,
      )
      .replace('</body>', `  ${preloads}${start}\n  </body>`);
  };

  /**
   * One page at `path` (which `route` matches), or undefined when its remote has no server build here;
   * `actionData` is the outcome of a native form post that the page shows.
   */
  async function renderPage(route: PageRoute, path: string, manifest: RemotesManifest, actionData?: unknown) {
    const entry = manifest[route.remote];
    const folder = entry && remoteFolderOnDisk(root, route.remote, entry, remotesDir, remotesBaseUrl);
    const serverModule = folder && join(folder, 'ssr', `${route.module.replace(/^\.\//, '')}.js`);
    if (!entry || !folder || !serverModule || !existsSync(serverModule)) return undefined;
    const { default: Page } = (await importFresh(serverModule)) as { default: ComponentType };
    const rendered = await shell.renderPage(
      `http://prerender.invalid${path}`,
      async (candidate) => (candidate.path === route.path ? { ok: true, Page } : { ok: false, reason: 'failed' }),
      actionData,
    );
    const base = entry.slice(0, entry.split('?')[0]!.lastIndexOf('/') + 1);
    // The server build names its files where a workspace build is served; a deploy may serve them elsewhere.
    const html = withoutServerErrors(rendered.html).replaceAll(remoteServedAt(route.remote), base);
    const federation = JSON.parse(readFileSync(join(folder, 'mf-manifest.json'), 'utf8')) as FederationManifest;
    const assets = federation.exposes.find((expose) => expose.path === route.module)?.assets;
    const integrity = integrityOf(folder);
    const head = [
      metadataTags({ title: route.title, description: route.description, path }, siteUrlPlaceholder),
      ...(assets?.css.sync ?? []).map((css) => remoteStylesheet(folder, css, base + css, integrity[css])),
      ...(route.path === paths.home ? [organizationJsonLd(siteUrlPlaceholder)] : []),
    ];
    const rootAttributes: Record<string, string> = {
      'data-prerendered-route': route.path,
      'data-remote-entry': entry,
      ...(actionData === undefined ? {} : { 'data-action-data': JSON.stringify(actionData) }),
    };
    const pageModule = direct && pageModulesOf(folder)?.[route.module];
    if (direct && pageModule) {
      // Issue 79: the page's module and the shell's app, nothing of the federation runtime until it has hydrated.
      const files = [pageModule.file, ...pageModule.imports];
      const byUrl = Object.fromEntries(
        files.flatMap((file) => (integrity[file] ? [[base + file, integrity[file]] as const] : [])),
      );
      const start = directStart(
        direct,
        files.map((file) => base + file),
      );
      rootAttributes['data-page-module'] = base + pageModule.file;
      if (direct.hostInit) rootAttributes['data-host-init'] = direct.hostInit;
      const document = toDocument(html, head, rootAttributes, start, byUrl);
      return { document, status: rendered.status, entry } satisfies RenderedPage;
    }
    // The page's chunks, and the wrappers through which the remote reads the shell's shared modules: the manifest
    // lists those as loaded on demand, but every page of the remote asks for them as it starts.
    const startup = [
      ...(assets?.js.sync ?? []),
      ...(assets?.js.async ?? []).filter((js) => js.includes('__loadShare__')),
    ];
    const byUrl = Object.fromEntries(
      [
        [entry, integrity[remoteEntryFile]] as const,
        ...startup.map((js) => [base + js, integrity[js]] as const),
      ].filter((pair): pair is readonly [string, string] => pair[1] !== undefined),
    );
    const document = toDocument(
      html,
      head,
      rootAttributes,
      federated([entry, ...startup.map((js) => base + js)]),
      byUrl,
    );
    return { document, status: rendered.status, entry } satisfies RenderedPage;
  }

  async function renderNotFound(): Promise<RenderedPage> {
    const rendered = await shell.renderPage('http://prerender.invalid/__not-found__', async () => ({
      ok: false,
      reason: 'failed',
    }));
    const head = [
      metadataTags({ ...notFoundMetadata, path: '/404' }, siteUrlPlaceholder),
      '<meta name="robots" content="noindex" />',
    ];
    return {
      document: toDocument(
        withoutServerErrors(rendered.html),
        head,
        {
          'data-prerendered-route': notFoundPrerenderedRoute,
          ...(direct?.hostInit ? { 'data-host-init': direct.hostInit } : {}),
        },
        direct ? directStart(direct, []) : federated([]),
      ),
      status: rendered.status,
    };
  }

  return { renderPage, renderNotFound };
}

/**
 * Renders every public page whose remote is in the manifest and has a server build into `shell/dist-pages`.
 * Pages whose remote is missing are left to the browser. Runs after a build and again whenever the manifest
 * points a remote elsewhere.
 */
export async function prerenderSite(options: {
  root: string;
  manifest: RemotesManifest;
  remotesDir?: string;
  remotesBaseUrl?: string;
}) {
  const { root, manifest } = options;
  const renderer = await createPageRenderer(options);
  const outDir = prerenderedDir(root);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const index: PrerenderedIndex = {};
  const skipped: string[] = [];
  const write = (key: string, document: string) => {
    const file = `${key === '/' ? 'index' : key.replace(/^\//, '').replace(/\//g, '__')}.html`;
    writeFileSync(join(outDir, file), document);
    return file;
  };

  for (const route of prerenderedRoutes) {
    const page = await renderer.renderPage(route, route.path, manifest);
    if (!page) {
      skipped.push(route.path);
      continue;
    }
    index[route.path] = {
      file: write(route.path, page.document),
      status: page.status,
      remote: route.remote,
      entry: page.entry,
    };
  }
  const notFound = await renderer.renderNotFound();
  index[notFoundKey] = { file: write(notFoundKey, notFound.document), status: notFound.status };
  writeFileSync(join(outDir, 'pages.json'), `${JSON.stringify(index, null, 2)}\n`);
  return { index, skipped };
}

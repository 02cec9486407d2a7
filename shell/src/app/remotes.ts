import {
  integrityElementId,
  isRemoteName,
  pageModulesElementId,
  manifestElementId,
  manifestPath,
  remotes,
  retryQuery,
  type RemoteName,
  type RemotesIntegrity,
  type RemotesPageModules,
  type RemotesManifest,
} from '@gift/federation';
import type { ComponentType } from 'react';
import type * as FederationRuntime from '@module-federation/runtime';

export type PageLoad = { ok: true; Page: ComponentType } | { ok: false; reason: 'not-deployed' | 'refused' | 'failed' };

/** In `pnpm dev` each remote is served by its own dev server, at the origins the shell's dev server gives. */
const devOrigins: string[] =
  import.meta.env.DEV && typeof __DEV_REMOTE_ORIGINS__ !== 'undefined' ? __DEV_REMOTE_ORIGINS__ : [];

/** The origins besides its own that the server said remote code may come from (REMOTE_ORIGINS), read with the manifest. */
let remoteOrigins: string[] = [];

/** Where remote code may come from: this origin, and the origins the server allows (its CSP allows the same). */
export function isAllowedEntry(entry: string, origin = window.location.origin, allowed = remoteOrigins): boolean {
  const configured = [...allowed, ...devOrigins];
  try {
    const url = new URL(entry, origin);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      (url.origin === origin || configured.includes(url.origin))
    );
  } catch {
    return false;
  }
}

/** A remote that accepts the connection and never answers must not leave the page loading forever. */
export const remoteTimeoutMs = 10_000;
const retryDelayMs = 400;

let manifest: Promise<RemotesManifest> | undefined;
const registered = new Map<RemoteName, string>();
/** The entry of each remote's build this page runs, however its page was loaded. */
const loaded = new Map<RemoteName, string>();
const loggedFailures = new Set<RemoteName>();
const pageLoads = new Map<string, Promise<PageLoad>>();

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${remoteTimeoutMs} ms`)), remoteTimeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The remotes a manifest names, with anything that is not a known remote's entry URL left out. */
function toManifest(data: unknown): RemotesManifest {
  if (typeof data !== 'object' || data === null) throw new Error('The remotes manifest is not a JSON object');
  const entries = Object.entries(data).filter(
    (entry): entry is [RemoteName, string] => isRemoteName(entry[0]) && typeof entry[1] === 'string',
  );
  return Object.fromEntries(entries);
}

async function fetchManifest(): Promise<RemotesManifest> {
  const response = await withTimeout(fetch(manifestPath, { cache: 'no-store' }), 'The remotes manifest');
  if (!response.ok) throw new Error(`The remotes manifest answered HTTP ${response.status}`);
  return toManifest(await response.json());
}

/**
 * The manifest the server sent inside the page, as it was when it sent it: the page's own remote loads without
 * asking for the manifest first. Read once; a retry asks the server again.
 */
function manifestInPage(): RemotesManifest | undefined {
  const element = document.getElementById(manifestElementId);
  if (!element?.textContent) return undefined;
  element.remove();
  remoteOrigins = (element.dataset.remoteOrigins ?? '').split(' ').filter(Boolean);
  try {
    return toManifest(JSON.parse(element.textContent));
  } catch {
    return undefined;
  }
}

function readManifest(fresh: boolean): Promise<RemotesManifest> {
  if (!manifest && !fresh) {
    const inPage = manifestInPage();
    if (inPage) manifest = Promise.resolve(inPage);
  }
  if (!manifest || fresh) {
    manifest = fetchManifest();
    manifest.catch(() => (manifest = undefined));
  }
  return manifest;
}

/** The entry URL the manifest gives a remote now, if any. */
export async function currentEntry(remote: RemoteName): Promise<string | undefined> {
  return (await readManifest(false))[remote];
}

/** The entry URL of the build of `remote` this page runs, once it has loaded it. */
export const loadedEntry = (remote: RemoteName) => loaded.get(remote);

/**
 * The federation runtime, started once, when the page first needs it: a client-side navigation to a page not loaded
 * yet, a retry, a prefetch, or the page's idle time after hydration (`startFederationWhenIdle`). A page the server
 * rendered from a page module starts without it (issue 79): the server then names the shell's host init, which
 * registers the shell's shared modules (the same copies the page module runs on) and the runtime that remotes use.
 * A page started by the shell's own entry has run that init already; importing it again only waits for it.
 */
let federation: Promise<typeof FederationRuntime> | undefined;
function startFederation() {
  federation ??= (async () => {
    const runtime = await import('@module-federation/runtime');
    const hostInit = document.getElementById('root')?.dataset.hostInit;
    if (hostInit)
      await ((await import(/* @vite-ignore */ hostInit)) as { hostInitPromise: Promise<unknown> }).hostInitPromise;
    return runtime;
  })();
  federation.catch(() => (federation = undefined));
  return federation;
}

/** After hydration, once the main thread is idle: the runtime for the next client-side navigation. */
export function startFederationWhenIdle() {
  const start = () => void startFederation().catch(() => undefined);
  if ('requestIdleCallback' in window) requestIdleCallback(start, { timeout: 5000 });
  else setTimeout(start, 1000);
}

/**
 * The page module the server named for the page it rendered (`data-page-module` on #root, with its route): a plain ES
 * module whose shared imports the page's import map resolves to the shell's copies, and whose file it pins by
 * integrity. Read once: a later load of the same page (a retry) goes through federation.
 */
let pageModule: { route?: string; url?: string; tried?: boolean } | undefined;
function pageModuleOf(route: string) {
  if (!pageModule) {
    const { pageModule: url, prerenderedRoute } = document.getElementById('root')?.dataset ?? {};
    pageModule = { route: prerenderedRoute, url };
  }
  if (pageModule.route !== route || !pageModule.url) return undefined;
  const { url } = pageModule;
  pageModule.url = undefined;
  pageModule.tried = true;
  return url;
}

/**
 * What the server said this page can check of each released remote (integrity-map.ts): the entry whose files the
 * page's import map names with their integrity, and each module's stylesheets with theirs. Read once, and kept.
 */
let checkable: RemotesIntegrity | undefined;
function integrityInPage(): RemotesIntegrity {
  try {
    checkable ??= JSON.parse(document.getElementById(integrityElementId)?.textContent || '{}') as RemotesIntegrity;
  } catch {
    checkable = {};
  }
  return checkable;
}

/**
 * The page modules the server named for the builds of the page's manifest (issue 79): a visit to one of their pages
 * (a client-side link, a prefetch on intent) imports its module directly, one round of requests, its stylesheets
 * first. Read once, and kept.
 */
let pagesListed: RemotesPageModules | undefined;
function pageModulesInPage(): RemotesPageModules {
  try {
    pagesListed ??= JSON.parse(
      document.getElementById(pageModulesElementId)?.textContent || '{}',
    ) as RemotesPageModules;
  } catch {
    pagesListed = {};
  }
  return pagesListed;
}

/** Asks for a page module's chunks at once, beside the module: its import would find them one level at a time. */
const preloadModules = (urls: string[]) =>
  document.head.append(
    ...urls
      .filter((href) => !document.querySelector(`link[rel=modulepreload][href="${CSS.escape(href)}"]`))
      .map((href) => Object.assign(document.createElement('link'), { rel: 'modulepreload', crossOrigin: '', href })),
  );

/**
 * Puts a module's stylesheets in the page with their integrity before the module loads: the remote's own loader then
 * finds them there and adds no link of its own (which would carry none). One the browser refuses fails the load, and
 * goes, so that a new try fetches it again. One in the page already (the page's own, its bytes checked on the server
 * and its link disabled) is not fetched.
 */
const stylesFirst = (styles: [string, string][]) =>
  Promise.all(
    styles
      .filter(([href]) => !document.querySelector(`link[rel=stylesheet][href="${CSS.escape(href)}"]`))
      .map(
        ([href, integrity]) =>
          new Promise((onload, reject) => {
            const link = Object.assign(document.createElement('link'), {
              rel: 'stylesheet',
              crossOrigin: 'anonymous',
              integrity,
              href,
              onload,
              onerror: () => {
                link.remove();
                reject(new Error(`Refused ${href}`));
              },
            });
            document.head.append(link);
          }),
      ),
  );

/**
 * A remote that could not be loaded or was refused is an error of the page's view: the field data, which hears the
 * window's errors, reports it with the remote's version (and the release watch counts it).
 */
const reportProblem = (problem: string) => window.dispatchEvent(new ErrorEvent('error', { message: problem }));

function register(
  registerRemotes: typeof FederationRuntime.registerRemotes,
  remote: RemoteName,
  entry: string,
  attempt: number,
  checked: boolean,
) {
  // A fresh URL on retry: the browser keeps a failed module import for the life of the page. A checked entry's is the
  // one the import map names too.
  const url =
    attempt === 0 ? entry : `${entry}${entry.includes('?') ? '&' : '?'}${checked ? retryQuery : `retry=${attempt}`}`;
  if (registered.get(remote) === url) return;
  registerRemotes([{ name: remote, entry: url, type: 'module' }], { force: registered.has(remote) });
  registered.set(remote, url);
}

type PageExports = { default?: ComponentType } | null | undefined;

async function importPage(remote: RemoteName, module: string, attempt: number, route?: string): Promise<PageLoad> {
  const entries = await readManifest(attempt > 0);
  const entry = entries[remote];
  if (!entry) {
    logOnce(remote, () => console.warn(`[shell] The ${remote} remote is not in the remotes manifest.`));
    return { ok: false, reason: 'not-deployed' };
  }
  if (!isAllowedEntry(entry)) {
    logOnce(remote, () =>
      console.error(`[shell] Refused the ${remote} remote: its entry ${entry} is outside the allowed origins.`),
    );
    return { ok: false, reason: 'refused' };
  }
  const checked = integrityInPage()[remote];
  if (checked && checked.entry !== entry) {
    // A build released since the page was sent: this page cannot check its files, so it does not run them.
    const problem = `Refused the ${remote} remote: ${entry} is not this page's build (reload)`;
    logOnce(remote, () => console.error(`[shell] ${problem}`));
    reportProblem(problem);
    return { ok: false, reason: 'refused' };
  }
  // The page the server rendered: its module, its stylesheets in the page already. Another page of a build with page
  // modules: its module and stylesheets, on a first try (a second goes through federation, with a fresh address).
  const rendered = route === undefined ? undefined : pageModuleOf(route);
  const listed = attempt === 0 ? pageModulesInPage()[remote] : undefined;
  const files = listed?.entry === entry ? listed.modules[module] : undefined;
  const direct = rendered ?? files?.js[0];
  let exports: PageExports;
  if (direct) {
    if (!rendered && files) {
      preloadModules(files.js.slice(1));
      // Each with its recorded integrity (the server read it from the same record as the import map's).
      await stylesFirst(files.css);
    }
    exports = await withTimeout(import(/* @vite-ignore */ direct) as Promise<PageExports>, `The ${remote} page module`);
  } else {
    const { loadRemote, registerRemotes } = await startFederation();
    register(registerRemotes, remote, entry, attempt, checked !== undefined);
    if (checked) await stylesFirst(checked.styles[module] ?? []);
    exports = await withTimeout(
      loadRemote<NonNullable<PageExports>>(`${remote}/${module.replace(/^\.\//, '')}`),
      `The ${remote} remote`,
    );
  }
  if (!exports?.default) throw new Error(`The ${remote} remote exposes no page component at ${module}`);
  loaded.set(remote, entry);
  return { ok: true, Page: exports.default };
}

function logOnce(remote: RemoteName, log: () => void) {
  if (loggedFailures.has(remote)) return;
  loggedFailures.add(remote);
  log();
}

let retrySequence = 0;

async function loadPageOnce(remote: RemoteName, module: string, route?: string): Promise<PageLoad> {
  try {
    return await importPage(remote, module, 0, route);
  } catch (error) {
    // A page module refused or unreachable is a problem of the view even when the retry (through federation) works.
    if (route !== undefined && pageModule?.tried && pageModule.route === route) {
      pageModule.tried = false;
      reportProblem(`The ${remote} page module could not be loaded: ${(error as Error)?.message ?? String(error)}`);
    }
    // Transient failures (a dropped connection, a deploy in progress) get one more try.
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    try {
      return await importPage(remote, module, ++retrySequence);
    } catch (error) {
      logOnce(remote, () =>
        console.error(
          `[shell] The ${remote} remote could not be loaded: a page of it the server sent stays as sent, one opened in the site shows the unavailable state.`,
          error,
        ),
      );
      reportProblem(`The ${remote} remote could not be loaded: ${(error as Error)?.message ?? String(error)}`);
      return { ok: false, reason: 'failed' };
    }
  }
}

/**
 * The page module of a remote; never rejects, so a failing remote only ever shows its fallback. `route`: the page's
 * path, whose page module the server may have named (pageModuleOf).
 */
export function loadPage(remote: RemoteName, module: string, route?: string): Promise<PageLoad> {
  const key = `${remote}/${module}`;
  let load = pageLoads.get(key);
  if (!load) {
    load = loadPageOnce(remote, module, route);
    pageLoads.set(key, load);
  }
  return load;
}

/** Whether the page preloaded files of `remote` (the modulepreload links the server put in its head). */
const preloadedHere = (remote: RemoteName) =>
  document.querySelector(`link[rel=modulepreload][href*="/${remotes[remote].folder}/"]`) !== null;

/** Forget a failed load so the next `loadPage` tries the network again. */
export function reloadPage(remote: RemoteName, module: string): Promise<PageLoad> {
  // A remote whose files this page checks is tried again by loading the page again: a new try needs an address the
  // page's import map cannot name in advance, and the page then checks the build the server names now. So is one whose
  // files the page preloaded: Chromium keeps a failed preload for the life of the page, and a new entry importing the
  // same file fails with it (seen in Chromium 150: "Try again" never recovered once the files had been unreachable).
  if (integrityInPage()[remote] || preloadedHere(remote)) {
    window.location.reload();
    return new Promise<PageLoad>(() => undefined);
  }
  pageLoads.delete(`${remote}/${module}`);
  manifest = undefined;
  return loadPage(remote, module);
}

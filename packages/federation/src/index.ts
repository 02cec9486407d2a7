import { devPorts as sharedDevPorts } from '@gift/contracts/dev-ports';
/** Every remote of the site: its workspace folder, its federation name and the port its dev server uses. */
export const remotes = {
  consumer: { folder: 'consumer', devPort: 5174 },
  vendor: { folder: 'vendor', devPort: 5175 },
  business: { folder: 'business', devPort: 5176 },
  legal: { folder: 'legal', devPort: 5177 },
  account: { folder: 'account', devPort: 5178 },
  share_location: { folder: 'share-location', devPort: 5179 },
} as const;

export type RemoteName = keyof typeof remotes;

export const remoteNames = Object.keys(remotes) as RemoteName[];

/** The shell's dev server's port before DEV_PORT_OFFSET (see `devPorts`). */
export const shellDevPort = /* @__PURE__ */ (() => sharedDevPorts({}).site)();

/**
 * Where `pnpm dev` serves the shell and each remote, the API and MailDev: @gift/contracts' dev ports (moved by
 * DEV_PORT_OFFSET, API_PORT for the API), and each remote's `devPort` moved alike. Read where Node runs: the dev
 * servers' configs; the shell's page learns its remotes' origins from its dev server.
 */
export function devPorts(env: Record<string, string | undefined>) {
  const ports = sharedDevPorts(env);
  return { ...ports, shell: ports.site, remote: (name: RemoteName) => remotes[name].devPort + ports.offset };
}

/** File name of every remote's entry; the manifest points at it. */
export const remoteEntryFile = 'remoteEntry.js';

/** Path the site serves the remotes manifest at: `{ "<remote name>": "<entry URL>" }`. */
export const manifestPath = '/remotes.json';

/**
 * The key in a browser's local storage that says the brand font has arrived once: the shell writes it, the page's
 * first script reads it and uses the font from the first paint (the file is in the browser's cache).
 */
export const brandFontKey = 'brand-font';

/** Id of the element in which the server sends the manifest with each page, as JSON. */
export const manifestElementId = 'remotes-manifest';

/**
 * Id of the element in which the server sends, with each page, what the browser checks a released remote's files
 * against: for each remote whose build in the page's manifest has recorded integrity, its entry and each exposed
 * module's stylesheets with their Subresource Integrity (its scripts' are in the page's import map).
 */
export const integrityElementId = 'remotes-integrity';

/** `{ "<remote>": { entry, styles: { "<exposed module>": [[url, integrity], ...] } } }`, as the element holds it. */
export type RemotesIntegrity = Partial<
  Record<RemoteName, { entry: string; styles: Record<string, [string, string][]> }>
>;

/**
 * Id of the element in which the server sends, with each page, the page modules of every build its manifest names that
 * has them (issue 79): a client-side visit or a prefetch imports a page's module directly, through the page's import
 * map, instead of the remote's entry and the federation runtime's chain of requests.
 */
export const pageModulesElementId = 'remotes-page-modules';

/** `{ "<remote>": { entry, modules: { "<exposed module>": { js: [url, ...], css: [[url, integrity or ''], ...] } } } }`. */
export type RemotesPageModules = Partial<
  Record<RemoteName, { entry: string; modules: Record<string, { js: string[]; css: [string, string][] }> }>
>;

/** The query a second try of a remote's entry adds (a browser keeps a failed import): its integrity is the entry's. */
export const retryQuery = 'retry=1';

/**
 * The manifest as an element of a page's head, with the origins besides the page's own that remote code may come
 * from (the server's setting, which its Content-Security-Policy allows too); `<` is escaped so that no value can end
 * the element early.
 */
export const manifestElement = (manifest: RemotesManifest, remoteOrigins: string[] = []) =>
  `<script type="application/json" id="${manifestElementId}" data-remote-origins="${remoteOrigins
    .join(' ')
    .replace(/[^\w:/.\-[\] ]/g, '')}">${JSON.stringify(manifest).replace(/</g, '\\u003c')}</script>`;

export type RemotesManifest = Partial<Record<RemoteName, string>>;

export function isRemoteName(name: string): name is RemoteName {
  return Object.hasOwn(remotes, name);
}

/** Where a remote's build is served when the site runs from this workspace; a deploy may serve it elsewhere. */
export const remoteServedAt = (name: RemoteName) => `/remotes/${remotes[name].folder}/`;

/** Folder of a build's server-side bundle (for prerendering), inside `dist` so that one folder is one deploy. */
export const ssrOutDir = 'dist/ssr';

/** The Vite mode of a remote's page-modules build (`vite build --mode page-modules`, see remoteConfig). */
export const pageModulesMode = 'page-modules';

/** The page-modules build's index, in the build's folder: each exposed module's file, the chunks it imports, its CSS. */
export const pageModulesFile = 'page-modules.json';

/** `{ "./LandingPage": { file, imports, css } }`, paths relative to the build's folder. */
export type PageModules = Record<string, { file: string; imports: string[]; css: string[] }>;

/** Where the shell's build says which of its files gives page modules the shared modules (`{ file, specifiers }`). */
export const sharedModulesIndex = '.vite/shared-modules.json';

/** A published build's Subresource Integrity of each script and stylesheet, by its path in the build. */
export const integrityFile = 'integrity.json';

/** A script a browser may load, whatever its build named it: `.js`, `.mjs` or `.cjs`. */
export const isScriptFile = (path: string) => /\.[mc]?js$/.test(path);

/** What a build's integrity pins: every script and stylesheet. */
export const isPinnedFile = (path: string) => isScriptFile(path) || path.endsWith('.css');

/** The modules host and remotes share as one copy each: one React, one router, one store. */
export const sharedSingletons = {
  react: { singleton: true, requiredVersion: '^19.0.0' },
  'react/jsx-runtime': { singleton: true, requiredVersion: '^19.0.0' },
  'react-dom': { singleton: true, requiredVersion: '^19.0.0' },
  '@gift/router': { singleton: true, version: '1.0.0', requiredVersion: '^1.0.0' },
  zustand: { singleton: true, requiredVersion: '^5.0.0' },
  '@gift/store': { singleton: true, version: '1.0.0', requiredVersion: '^1.0.0' },
};

/** The package a module specifier names (`react` for `react/jsx-runtime`, `@scope/name` for `@scope/name/x`). */
export const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * (Marked pure, as `shellDevPort` is: the browser's bundles, which import this package for its names, drop them.)
 *
 * The packages a remote's server build leaves to the server that runs it (the singletons' own packages and the router
 * @gift/router wraps; the @gift ones are bundled): the page server gives every build its own copies of these.
 */
export const serverSharedPackages = /* @__PURE__ */ (() =>
  [...new Set([...Object.keys(sharedSingletons).map(packageOf), 'react-router'])].filter(
    (name) => !name.startsWith('@gift/'),
  ))();

import { federation } from '@module-federation/vite';
import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { esmExternalRequirePlugin, type ConfigEnv, type Plugin, type PluginOption, type UserConfig } from 'vite';
import {
  devPorts,
  pageModulesFile,
  pageModulesMode,
  remoteEntryFile,
  remoteServedAt,
  sharedModulesIndex,
  sharedSingletons,
  ssrOutDir,
  type PageModules,
  type RemoteName,
} from './index.ts';

export { sharedSingletons };

/**
 * Small modules every page needs at start, in one chunk instead of one request each: the federation runtime's
 * helpers and, in a remote, the wrappers that read the host's shared modules.
 */
const startupChunk = {
  codeSplitting: {
    groups: [
      { name: 'federation', test: /node_modules[\\/].*@module-federation[\\/]|__loadShare__|^\0rolldown[\\/]runtime/ },
    ],
  },
};

// Vite 8 resolves some CommonJS packages differently in tests; this keeps one router copy there too.
const resolveConditions = ['module-sync', 'module', 'browser', 'development|production'];

/**
 * react-router's package names only its development build, whatever the mode (remix-run/react-router#14102, open):
 * a production build of the browser's code takes the production one instead, without the development warnings and
 * the code that makes them. Server builds keep the package's own (same rendering, resolved by Node at run time).
 */
function productionRouter(command: ConfigEnv['command']) {
  if (command !== 'build') return [];
  const development = createRequire(new URL('../../router/package.json', import.meta.url)).resolve('react-router');
  return [
    {
      find: /^react-router$/,
      replacement: development.replace(/development[\\/]index\.m?js$/, 'production/index.mjs'),
    },
  ];
}

/**
 * V8's explicit compile hint (Chrome 136+; other engines read a comment) on the chunks large enough for it to matter:
 * every function of the file is compiled while the file streams in, on a background thread, instead of on the main
 * thread when it is first called. Without it, react-dom's whole factory function was parsed twice, the second time on
 * the main thread as the page started (issue 60: on the phone profile, `/privacy` hydrated 2,753 -> 2,144 ms and its
 * blocking time 497 -> 314, medians of 7 alternating). Smaller chunks are left out to spare the bytes of the
 * comment in each of them (their gain was not measured on its own). The comment must open the file, so it goes in
 * after Vite's own additions to the chunk.
 */
export function compileHints(minBytes = 16 * 1024): Plugin {
  return {
    name: 'compile-hints',
    apply: 'build',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type === 'chunk' && chunk.code.length >= minBytes) {
            chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
          }
        }
      },
    },
  };
}

/**
 * Writes a maximum-quality Brotli copy beside every text file of the build, once, so that the server sends
 * it as it is instead of compressing each response quickly and less well.
 */
export function precompress(): Plugin {
  let outDir = '';
  const walk = (folder: string): string[] =>
    readdirSync(folder).flatMap((name) => {
      const path = join(folder, name);
      return statSync(path).isDirectory() ? (name === 'ssr' ? [] : walk(path)) : [path];
    });
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir.startsWith('/') ? config.build.outDir : join(config.root, config.build.outDir);
    },
    closeBundle() {
      for (const file of walk(outDir).filter((path) => /\.(js|css|html|svg|json)$/.test(path))) {
        const content = readFileSync(file);
        if (content.length < 1024) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

const standaloneEntry = 'standalone-entry.tsx';

/**
 * A remote's page of its own on its dev server (`pnpm --filter <remote> dev`): every address answers with a
 * standalone page that renders the remote's routes without the shell (`renderStandalone` in @gift/ui). Every
 * remote's is the same but for its name, so none keeps an index.html or an entry module of its own.
 */
function standalonePage(name: RemoteName): Plugin {
  // Served as if it were a file at the remote's root, the build input in serve mode (see remoteConfig): the
  // federation plugin starts its runtime in that entry before the pages load React.
  const entry = `/${standaloneEntry}`;
  let entryFile = '';
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${name} remote (standalone)</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="${entry}"></script>
  </body>
</html>
`;
  return {
    name: 'standalone-page',
    apply: 'serve',
    configResolved: (config) => {
      entryFile = join(config.root, entry);
    },
    // The federation plugin imports it again with a query, once its runtime has started.
    resolveId: (id) => {
      const [path, query] = id.split('?');
      if (path === entry || path === entryFile) return query === undefined ? entryFile : `${entryFile}?${query}`;
    },
    load: (id) =>
      id.split('?')[0] === entryFile
        ? `import { renderStandalone } from '@gift/ui/standalone';
renderStandalone(${JSON.stringify(name)}, import.meta.glob('/src/pages/*.tsx', { eager: true }));\n`
        : undefined,
    // After Vite's own middlewares: its modules and files first, then any page address gets the page.
    configureServer: (server) => () => {
      server.middlewares.use(async (request, response, next) => {
        if (request.method !== 'GET' || !request.headers.accept?.includes('text/html')) return next();
        try {
          const page = await server.transformIndexHtml(request.url ?? '/', html, request.originalUrl);
          response.setHeader('content-type', 'text/html; charset=utf-8');
          response.end(page);
        } catch (error) {
          next(error);
        }
      });
    },
  };
}

/**
 * The server build is ES modules in `.js` files: a package.json beside them says so, wherever the folder is copied (a
 * release's version folder), so that plain Node loads them without guessing and warning (tsx, in front of the site
 * server, never warned; the release commands run without it).
 */
const esModulesHere: Plugin = {
  name: 'ssr-es-modules',
  generateBundle() {
    this.emitFile({ type: 'asset', fileName: 'package.json', source: '{ "type": "module" }\n' });
  },
};

/**
 * The server-side build of the same pages (`vite build --ssr`), for prerendering. Packages that ship CSS or
 * are CommonJS with a default export are bundled; React, the router and the rest stay shared from node_modules.
 */
function ssrConfig(input: Record<string, string>, base: string, outDir = ssrOutDir): UserConfig {
  return {
    base,
    plugins: [react(), esModulesHere],
    // The router stays one copy shared with the shell's server build even where a remote does not depend on it
    // (remotes reach it only through @gift/router); the page server resolves it for them.
    ssr: { noExternal: [/^@gift\//, 'react-slick', 'slick-carousel'], external: ['react-router'] },
    build: {
      ssr: true,
      outDir,
      emptyOutDir: true,
      copyPublicDir: false,
      assetsInlineLimit: 0,
      target: 'node20',
      rollupOptions: { input, output: { entryFileNames: '[name].js' } },
    },
  };
}

/**
 * Vite config of a remote: exposes page modules, builds relative to wherever it is served. Its build goes to `dist`,
 * or, for `pnpm release`, to the folder the release assembles a new version in (RELEASE_OUT_DIR).
 */
/**
 * How the dev servers watch the sources: a change is taken once the file has kept its size for 80 ms. Many editors save
 * in place (the file emptied, then written): a watcher that read it between the two handed the page a module with no
 * exports (`does not provide an export named ...`), and the page showed its part unavailable until the next save.
 */
export const devWatch = { awaitWriteFinish: { stabilityThreshold: 80, pollInterval: 10 } };

/**
 * `page-modules.json`: each exposed module's file in the page-modules build and every chunk its evaluation imports
 * (the page server preloads them all at once), relative to the build's folder.
 */
function pageModulesManifest(exposes: Record<string, string>, root: () => string): Plugin {
  return {
    name: 'page-modules-manifest',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = new Map(
        Object.values(bundle).flatMap((chunk) => (chunk.type === 'chunk' ? [[chunk.fileName, chunk] as const] : [])),
      );
      // The shell's shared-modules module has one default export, React's (sharedModulesFacade).
      for (const chunk of chunks.values()) {
        for (const specifier of Object.keys(sharedSingletons).filter((name) => name !== 'react')) {
          const quoted = JSON.stringify(specifier).replace(/[/.]/g, '\\$&');
          if (
            new RegExp(`import\\s*([\\w$]+\\s*[,{]?|\\{[^}]*\\bdefault\\b)[^;]*?from\\s*${quoted}`).test(chunk.code)
          ) {
            throw new Error(`${chunk.fileName} imports the default export of ${specifier}: import its names instead`);
          }
        }
      }
      const modules: PageModules = {};
      for (const [key, file] of Object.entries(exposes)) {
        const source = join(root(), file);
        const entry = [...chunks.values()].find((chunk) => chunk.isEntry && chunk.facadeModuleId === source);
        if (!entry) throw new Error(`The page-modules build has no chunk for ${key} (${file})`);
        const imports = new Set<string>();
        const visit = (fileName: string) =>
          chunks.get(fileName)?.imports.forEach((next) => {
            if (imports.has(next) || !chunks.has(next)) return;
            imports.add(next);
            visit(next);
          });
        visit(entry.fileName);
        const css = [...(entry.viteMetadata?.importedCss ?? [])];
        modules[key] = { file: entry.fileName, imports: [...imports], css };
      }
      this.emitFile({ type: 'asset', fileName: pageModulesFile, source: `${JSON.stringify(modules, null, 2)}\n` });
    },
  };
}

/**
 * The second browser build of a remote (`vite build --mode page-modules`): its exposed pages as plain ES modules that
 * import the shared modules by their bare names (`react`, `@gift/router`, ...), into the same folder as its federation
 * build. A page the server rendered loads its module through the page's import map, which resolves those names to the
 * shell's own copies: no remote entry and no share scope before the page hydrates (issue 79). The federation build
 * stays for client-side navigation, retries, previews and developer overrides.
 */
function pageModulesConfig(name: RemoteName, exposes: Record<string, string>, outDir: string | undefined): UserConfig {
  const shared = new Set(Object.keys(sharedSingletons));
  let root = '';
  return {
    base: './',
    plugins: [
      // A CommonJS dependency (react-slick) requires React: that becomes an import the import map resolves too.
      esmExternalRequirePlugin({ external: [...shared] }),
      react(),
      pageModulesManifest(exposes, () => root),
      { name: 'page-modules-root', configResolved: (config) => void (root = config.root) },
      compileHints(),
      precompress(),
    ],
    resolve: { conditions: resolveConditions, alias: productionRouter('build') },
    publicDir: false,
    build: {
      ...(outDir ? { outDir } : {}),
      emptyOutDir: false,
      target: 'es2022',
      minify: process.env.NO_MINIFY ? false : undefined,
      cssCodeSplit: true,
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      rolldownOptions: {
        input: Object.fromEntries(Object.entries(exposes).map(([key, file]) => [key.replace(/^\.\//, ''), file])),
        preserveEntrySignatures: 'strict',
        output: { entryFileNames: `assets/${name}-[name]-[hash].js` },
      },
    },
  };
}

export function remoteConfig(name: RemoteName, exposes: Record<string, string>) {
  const releaseOutDir = process.env.RELEASE_OUT_DIR;
  return ({ isSsrBuild, command, mode }: ConfigEnv): UserConfig => {
    if (mode === pageModulesMode) return pageModulesConfig(name, exposes, releaseOutDir);
    if (isSsrBuild) {
      const input = Object.fromEntries(Object.entries(exposes).map(([key, file]) => [key.replace(/^\.\//, ''), file]));
      return ssrConfig(input, remoteServedAt(name), releaseOutDir && join(releaseOutDir, 'ssr'));
    }
    const ports = devPorts(process.env);
    return {
      base: './',
      plugins: [
        react(),
        federation({
          name,
          filename: remoteEntryFile,
          exposes,
          // Remotes keep their own copies as fallbacks, never fetched in the composed site (the shell provides every
          // shared module eagerly). Consuming them with `import: false` dropped those files but made the plugin
          // infer which exports are used, and under load it sometimes finished before framer-motion's modules were
          // parsed and left out exports they import (a build that failed one time in eight here).
          shared: sharedSingletons,
          dts: false,
          // mf-manifest.json lists each exposed module's JS and CSS: prerendered pages preload them.
          manifest: true,
          // In the composed site the shell publishes the federation runtime and a remote does not ship a
          // second copy; a remote's dev server runs on its own, without the shell, and keeps its own.
          experiments: { externalRuntime: command === 'build' },
          // In `pnpm dev` an edit reaches the shell's page by React Fast Refresh, through the shell's refresh runtime.
          dev: { remoteHmr: true },
        }) as PluginOption,
        compileHints(),
        precompress(),
        standalonePage(name),
      ],
      resolve: { conditions: resolveConditions, alias: productionRouter(command) },
      server: {
        port: ports.remote(name),
        strictPort: true,
        watch: devWatch,
        origin: `http://localhost:${ports.remote(name)}`,
        // Standalone development talks to the API service (`pnpm --filter api dev`, or `pnpm dev`'s).
        proxy: { '/api': `http://127.0.0.1:${ports.api}` },
      },
      // The standalone entry is no file on disk: the dev server's dependency scan starts from the pages.
      optimizeDeps: { entries: ['src/pages/*.tsx'] },
      // Images stay files the browser fetches and caches, not text inside the page's JavaScript.
      build: {
        ...(releaseOutDir ? { outDir: releaseOutDir, emptyOutDir: true } : {}),
        target: 'es2022',
        minify: process.env.NO_MINIFY ? false : undefined,
        cssCodeSplit: true,
        assetsInlineLimit: 0,
        // Only what the shell loads: the remote entry and the exposed pages. The standalone page is for the dev
        // server (where the federation plugin starts its runtime in the entry named here); building it too would
        // split every module the two share into chunks of their own.
        rolldownOptions: { input: command === 'build' ? {} : { standalone: standaloneEntry }, output: startupChunk },
      },
    };
  };
}

/**
 * The federation plugin reads the runtime's version from the runtime's package.json, and the build then ships the
 * whole file (its scripts, exports and author: 1.5 KB) on every page. Only the name and the version reach the browser.
 */
function federationRuntimeVersionOnly(): Plugin {
  return {
    name: 'federation-runtime-version-only',
    enforce: 'pre',
    apply: 'build',
    load(id) {
      if (!/@module-federation[\\/]runtime[\\/]package\.json$/.test(id)) return;
      const { name, version } = JSON.parse(readFileSync(id, 'utf8')) as { name: string; version: string };
      return JSON.stringify({ name, version });
    },
  };
}

/**
 * One module of the shell's build that exports every shared module's names (React's, React DOM's, the JSX runtime's,
 * the router's and the stores'): a page's import map resolves each shared name (`react`, `@gift/router`, ...) to it, so
 * that a remote's page module (pageModulesConfig) runs on the shell's own copies, in one request. React's packages are
 * CommonJS: their names are read here, and two that name the same export must give it the same value (`version`,
 * `Fragment`), or the build stops. A page module may import a default only from `react` (the page-modules build checks).
 */
function sharedModulesFacade(): Plugin {
  const id = '\0shared-modules-facade';
  const fromShell = createRequire(new URL('../../../shell/package.json', import.meta.url));
  const commonJs = ['react', 'react/jsx-runtime', 'react-dom'];
  const esModules = Object.keys(sharedSingletons).filter((name) => !commonJs.includes(name));
  const code = () => {
    const seen = new Map<string, string>();
    const lines = commonJs.map((specifier, index) => {
      const module = fromShell(specifier) as Record<string, unknown>;
      const names = Object.keys(module).filter((name) => {
        const first = seen.get(name);
        if (first === undefined) return (seen.set(name, specifier), true);
        if ((fromShell(first) as Record<string, unknown>)[name] !== module[name])
          throw new Error(`${first} and ${specifier} both export ${name}, with different values`);
        return false;
      });
      return `import m${index} from ${JSON.stringify(specifier)};\nexport const { ${names.join(', ')} } = m${index};`;
    });
    return [...lines, 'export default m0;', ...esModules.map((name) => `export * from ${JSON.stringify(name)};`)].join(
      '\n',
    );
  };
  return {
    name: 'shared-modules-facade',
    apply: 'build',
    options(options) {
      const input = options.input ?? 'index.html';
      const named = typeof input === 'string' ? { index: input } : Array.isArray(input) ? { index: input[0]! } : input;
      // Vite's app builds drop entries' exports, which are this entry's whole purpose. The federation plugin's wrappers
      // of the three ES module packages each export the same helper names, which no page imports: not a conflict.
      const onLog = options.onLog;
      return {
        ...options,
        input: { ...named, 'shared-modules': id },
        preserveEntrySignatures: 'exports-only' as const,
        onLog: (level, log, handler) => {
          if (log.code === 'NAMESPACE_CONFLICT' && log.message.includes(id)) return;
          if (onLog) onLog(level, log, handler);
          else handler(level, log);
        },
      };
    },
    resolveId: (source) => (source === id ? id : undefined),
    load: (source) => (source === id ? code() : undefined),
    generateBundle(_options, bundle) {
      const facade = Object.values(bundle).find((chunk) => chunk.type === 'chunk' && chunk.facadeModuleId === id);
      if (!facade) throw new Error('The shell build has no shared-modules chunk');
      const index = { file: facade.fileName, specifiers: Object.keys(sharedSingletons) };
      this.emitFile({ type: 'asset', fileName: sharedModulesIndex, source: `${JSON.stringify(index, null, 2)}\n` });
    },
  };
}

/** Vite config of the shell: no remotes at build time, they come from the manifest at run time. */
export function hostConfig({ isSsrBuild, command }: ConfigEnv, extraPlugins: PluginOption[] = []): UserConfig {
  if (isSsrBuild) return ssrConfig({ prerender: 'src/prerender.tsx' }, '/');
  return {
    plugins: [
      react(),
      federation({
        name: 'shell',
        remotes: {},
        // The host's copies are in its own first chunks (eager): no request chain after the runtime starts.
        shared: Object.fromEntries(
          Object.entries(sharedSingletons).map(([name, config]) => [name, { ...config, eager: true }]),
        ),
        // Load a remote's entry only when one of its routes is visited.
        shareStrategy: 'loaded-first',
        dts: false,
        // mf-manifest.json records the shared modules the shell provides and their versions: a remote's release is
        // checked against it (a remote built for another major of React is refused).
        manifest: true,
        experiments: { provideExternalRuntime: true },
        // Remotes are named by their entry URLs, never by an mf-manifest: the runtime needs no snapshot support (1.3 KiB).
        disableSnapshot: true,
        dev: { remoteHmr: true },
      }) as PluginOption,
      federationRuntimeVersionOnly(),
      sharedModulesFacade(),
      compileHints(),
      precompress(),
      ...extraPlugins,
    ],
    resolve: { conditions: resolveConditions, alias: productionRouter(command) },
    // The build manifest tells the page server every chunk the shell needs at start, to preload them all at once.
    // Without Vite's modulepreload polyfill (about 0.3 KiB on every page): every browser that runs es2022 modules
    // preloads them itself but Safari before 17 and Firefox before 115, which load the same chunks a little later.
    build: {
      target: 'es2022',
      minify: process.env.NO_MINIFY ? false : undefined,
      manifest: true,
      modulePreload: { polyfill: false },
      rolldownOptions: { output: startupChunk },
    },
  };
}

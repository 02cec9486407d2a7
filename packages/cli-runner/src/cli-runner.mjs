// @ts-check
/**
 * The workspace's commands (the release tool, the operators' CLIs) as plain JavaScript. Through tsx a command spent
 * most of its start loading its TypeScript (1.4 s of 1.7 here: every module passes tsx's hooks), before reading a
 * file. Here each entry is bundled once by esbuild: the workspace's own modules inlined, the packages from
 * node_modules imported where they are (a relative path, so that a copy of the built workspace works too), and the
 * bundle kept beside its package in `dist/cli/<name>/`. A command that finds a source newer than its bundle builds it
 * again first (half a second); `pnpm build` builds them all. Plain JavaScript itself: it must start without tsx.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A path esbuild writes as an import: relative to the bundle's folder, with forward slashes. */
const importPath = (/** @type {string} */ from, /** @type {string} */ to) => {
  const path = relative(from, to).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
};

/** The folder of the package that holds `file` (its nearest package.json). */
function packageOf(/** @type {string} */ file) {
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    try {
      statSync(join(folder, 'package.json'));
      return folder;
    } catch {
      if (dirname(folder) === folder) throw new Error(`${file} is in no package`);
    }
  }
}

/** Where the bundles of `entry` live: `<package>/dist/cli/<entry's folder>-<entry's name>/`. */
function homeOf(/** @type {string} */ entry, root = packageOf(entry)) {
  const name = `${basename(dirname(entry))}-${basename(entry, extname(entry))}`;
  return join(root, 'dist', 'cli', name);
}

/**
 * @typedef {{ dir: string, builtAt: number, inputs: string[] }} Current
 * The bundle in use: its folder (in the home), when it was built, and the files it was built from (relative to the
 * home).
 */

/** @returns {Current | undefined} */
function currentOf(/** @type {string} */ home) {
  try {
    return JSON.parse(readFileSync(join(home, 'current.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether every file the bundle was built from is still there and no newer than the bundle. */
function isFresh(/** @type {string} */ home, /** @type {Current} */ current) {
  try {
    statSync(join(home, current.dir, 'main.mjs'));
    return current.inputs.every((input) => statSync(join(home, input)).mtimeMs <= current.builtAt);
  } catch {
    return false;
  }
}

/**
 * Packages inlined in the bundles all the same: plain JavaScript whose load is mostly its module graph. Kysely is 262
 * ES modules: 0.35 s of a 1 s `pnpm releases` here, resolved one by one, against a few milliseconds inlined.
 */
const inlined = new Set(['kysely']);

/**
 * esbuild's plugins: packages from node_modules (but the `inlined`) stay outside the bundle, imported by their path from the bundle's
 * folder (a package may be another workspace package's dependency, which this package's node_modules does not
 * list); the workspace's sources keep `import.meta.url` as their own file's address (they find files beside them:
 * a hook, a process to fork, the workspace's root).
 * @param {string} outdir
 * @returns {import('esbuild').Plugin[]}
 */
function plugins(outdir) {
  return [
    {
      name: 'packages-where-they-are',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, async (args) => {
          if (args.pluginData === 'inner') return undefined;
          const resolved = await build.resolve(args.path, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            importer: args.importer,
            pluginData: 'inner',
          });
          if (resolved.errors.length) return { errors: resolved.errors };
          if (resolved.external) return { path: args.path, external: true };
          if (!resolved.path.includes(`${sep}node_modules${sep}`)) return { path: resolved.path };
          if (inlined.has(args.path.split('/')[0] ?? '')) return { path: resolved.path };
          return { path: importPath(outdir, resolved.path), external: true };
        });
      },
    },
    {
      name: 'sources-keep-their-address',
      setup(build) {
        build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
          if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
          const text = readFileSync(args.path, 'utf8');
          const address = `new URL(${JSON.stringify(importPath(outdir, args.path))}, import.meta.url).href`;
          const extension = extname(args.path).replace(/^\.[cm]/, '.');
          return {
            contents: text.replaceAll('import.meta.url', address),
            loader: /** @type {import('esbuild').Loader} */ (extension.slice(1)),
          };
        });
      },
    },
  ];
}

/**
 * Builds `entry` (a path) into a new folder of its home and makes it the one in use; resolves with that folder's
 * `main.mjs`. Two commands that build at once each write a folder of their own; the last to finish is used.
 */
export async function buildCli(/** @type {string} */ entry) {
  const { build } = await import('esbuild');
  const root = packageOf(entry);
  const home = homeOf(entry, root);
  const dir = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const outdir = join(home, dir);
  const builtAt = Date.now();
  const result = await build({
    entryPoints: { main: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    metafile: true,
    logLevel: 'error',
    absWorkingDir: root,
    plugins: plugins(outdir),
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) =>
    relative(home, join(root, input.replace(/^[a-z-]+:/, ''))),
  );
  mkdirSync(home, { recursive: true });
  const pointer = join(home, `current.${dir}.json`);
  writeFileSync(pointer, JSON.stringify({ dir, builtAt, inputs }));
  renameSync(pointer, join(home, 'current.json'));
  // Bundles an hour old and not in use go (a command started from one has long loaded what it needs).
  for (const other of readdirSync(home)) {
    if (other === dir || other.endsWith('.json')) continue;
    if (Date.now() - statSync(join(home, other)).mtimeMs > 3_600_000) rmSync(join(home, other), { recursive: true });
  }
  return join(outdir, 'main.mjs');
}

/**
 * Runs the command whose TypeScript entry is `entryUrl` (a file URL): from its bundle, built first when missing or
 * older than a source; from the TypeScript through tsx when esbuild cannot build it (it says why).
 */
export async function runCli(/** @type {URL} */ entryUrl) {
  const entry = fileURLToPath(entryUrl);
  // The command runs as its entry would: a module that asks whether it is the one Node was started with (argv[1])
  // compares it with its own address, which the bundle keeps (see the plugins).
  process.argv[1] = entry;
  const home = homeOf(entry);
  const current = currentOf(home);
  let main = current && isFresh(home, current) ? join(home, current.dir, 'main.mjs') : undefined;
  if (!main) {
    try {
      main = await buildCli(entry);
    } catch (error) {
      console.error(`(running ${relative(process.cwd(), entry)} through tsx: its bundle could not be built: ${error})`);
      const { register } = await import('tsx/esm/api');
      register();
      await import(entryUrl.href);
      return;
    }
  }
  await import(pathToFileURL(main).href);
}

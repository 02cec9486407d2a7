import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire, register } from 'node:module';
import semver from 'semver';
import { packageOf, serverSharedPackages } from '@gift/federation';

/** A shared module as a build's federation manifest (`mf-manifest.json`) lists it. */
export interface SharedModule {
  name: string;
  /** The version the build was made with (its fallback copy). */
  version: string;
  /** The range the build accepts from whoever provides the module; `false` when it takes any. */
  requiredVersion?: string | false;
  singleton?: boolean;
}

/** The shared modules a build's federation manifest lists; throws with the file's name when it has none. */
export function sharedModulesOf(manifestFile: string): SharedModule[] {
  if (!existsSync(manifestFile)) throw new Error(`${manifestFile} is missing: the build has no federation manifest`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { shared?: SharedModule[] };
  if (!Array.isArray(manifest.shared)) throw new Error(`${manifestFile} lists no shared modules`);
  return manifest.shared;
}

/**
 * Why a remote's build cannot run on the shell's shared modules, one line per module; empty when it can. The shell
 * provides every singleton eagerly and the remote uses the shell's copy, so the shell's version must satisfy the
 * range the remote asks for, and be of the major version the remote was built against (code compiled against
 * React 18 does not run on React 19's internals, whatever range it declares).
 */
export function sharedModuleConflicts(shell: SharedModule[], candidate: SharedModule[]): string[] {
  const provided = new Map(shell.map((module) => [module.name, module]));
  const conflicts: string[] = [];
  for (const wanted of candidate) {
    const own = provided.get(wanted.name);
    if (!own) {
      if (wanted.singleton) {
        conflicts.push(`${wanted.name}: the candidate shares it as a singleton, the shell does not provide it`);
      }
      continue;
    }
    const range = wanted.requiredVersion || undefined;
    const outOfRange = range !== undefined && !semver.satisfies(own.version, range);
    const builtAgainst = semver.valid(wanted.version);
    const otherMajor =
      builtAgainst !== null && semver.valid(own.version) && semver.major(builtAgainst) !== semver.major(own.version);
    if (outOfRange || otherMajor) {
      conflicts.push(
        `${wanted.name}: the shell provides ${own.version}, the candidate was built with ${wanted.version}` +
          (range ? ` and requires ${range}` : ''),
      );
    }
  }
  return conflicts;
}

/** Node's CommonJS resolver, which `require` (also one made by `createRequire`) asks for a file. */
type ResolveFilename = (this: unknown, request: string, ...rest: unknown[]) => string;
const commonJs = Module as unknown as { _resolveFilename: ResolveFilename };

let resolving = false;
/**
 * From now on, in this process, every `import` and `require` of React, React DOM, the router and zustand resolves to
 * the copies this server (and so the shell's server build, in the same workspace) renders with, whichever file asks:
 * a remote's server build under REMOTES_DIR, in a copied workspace, or a CommonJS dependency bundled into it. Never
 * from NODE_PATH (pnpm's shims point it at the workspace they were installed in) nor a copy beside the build: two
 * Reacts in one render fail with "Invalid hook call". Node 20 has no public hook for `require` (module.registerHooks
 * came in 22.15), so the CommonJS resolver is wrapped as module-alias and tsx wrap it. Once per process.
 */
export function resolveSharedModules() {
  if (resolving) return;
  resolving = true;
  register('./shared-modules-hook.mjs', import.meta.url, { data: { packages: serverSharedPackages } });
  const shared = new Set(serverSharedPackages);
  const fromHere = createRequire(import.meta.url);
  const resolveFilename = commonJs._resolveFilename;
  let inner = false;
  commonJs._resolveFilename = function (request, ...rest) {
    if (inner || request.startsWith('.') || !shared.has(packageOf(request))) {
      return resolveFilename.call(this, request, ...rest);
    }
    inner = true;
    try {
      return fromHere.resolve(request);
    } finally {
      inner = false;
    }
  };
}

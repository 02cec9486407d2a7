import { existsSync, readFileSync } from 'node:fs';
import semver from 'semver';

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

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  integrityElementId,
  isScriptFile,
  pageModulesElementId,
  retryQuery,
  sharedModulesIndex,
  type RemoteName,
  type RemotesIntegrity,
  type RemotesPageModules,
  type RemotesManifest,
} from '@gift/federation';
import { integrityOf, pageModulesOf, remoteFolderOnDisk, type FederationManifest } from './prerender.ts';
import { watchedFile } from '../remotes/watched-file.ts';

/**
 * What makes a browser refuse a released remote's file that is not what its release recorded, however the page
 * reaches it (its first load, a client-side navigation, a prefetch, a preview, a canary): an import map whose
 * `integrity` names every script of every build the page's manifest names (Chromium 127+, Firefox 138+, Safari 18.4+
 * check each module they load against it, the federation runtime's own imports included), and beside it each exposed
 * module's stylesheets with their integrity, which the shell puts in the page before it loads the module (remotes.ts).
 * A build without recorded integrity (a workspace's own build) is left out, and loads as before.
 */

/**
 * A build's part of the page: its scripts' integrity by URL and its modules' stylesheets (a released build's), its page
 * modules (any build's that has them).
 */
interface BuildIntegrity {
  scripts: [string, string][];
  styles: Record<string, [string, string][]>;
  checked: boolean;
  modules?: NonNullable<RemotesPageModules[RemoteName]>['modules'];
}

export interface PageIntegrity {
  /** The elements for the page's head, first in it: the import map, then the stylesheets' element. */
  head: string;
  /** The shell's file that the import map resolves the shared modules to (its build changes it). */
  sharedModules?: string;
  /** The Content-Security-Policy source that allows this import map (an inline script), and no other. */
  scriptSource?: string;
}

const none: PageIntegrity = { head: '' };

export function pageIntegrity({
  root,
  remotesDir,
  remotesBaseUrl,
}: {
  root: string;
  remotesDir?: string;
  remotesBaseUrl?: string;
}) {
  // The shell's module that gives a remote's page module the shared modules (issue 79): the import map resolves their
  // names (`react`, `@gift/router`, ...) to it. Read again when the shell is rebuilt.
  const sharedModules = watchedFile(
    join(root, 'shell', 'dist', sharedModulesIndex),
    (text) => JSON.parse(text) as { file: string; specifiers: string[] },
  );
  /** The shell's shared-modules file the import map names now, if its build has one. */
  const sharedModulesFile = () => {
    const shared = sharedModules();
    return shared && `/${shared.file}`;
  };
  // Per entry URL: a released version's files never change. At most 200 (versions, previews and canaries).
  const builds = new Map<string, BuildIntegrity>();
  const buildOf = (remote: RemoteName, entry: string): BuildIntegrity | undefined => {
    const known = builds.get(entry);
    if (known) return known;
    const folder = remoteFolderOnDisk(root, remote, entry, remotesDir, remotesBaseUrl);
    const integrity = folder ? integrityOf(folder) : {};
    const pageModules = folder ? pageModulesOf(folder) : undefined;
    if (!folder || (!Object.keys(integrity).length && !pageModules)) return undefined;
    const base = entry.slice(0, entry.split('?')[0]!.lastIndexOf('/') + 1);
    let exposes: FederationManifest['exposes'] = [];
    try {
      exposes = (JSON.parse(readFileSync(join(folder, 'mf-manifest.json'), 'utf8')) as FederationManifest).exposes;
    } catch {
      // No federation manifest: its scripts are still checked; its stylesheets load as the remote loads them.
    }
    const scripts = Object.entries(integrity)
      .filter(([path]) => isScriptFile(path))
      .map(([path, value]): [string, string] => [base + path, value]);
    const entryIntegrity = integrity['remoteEntry.js'];
    if (entryIntegrity) scripts.push([`${entry}${entry.includes('?') ? '&' : '?'}${retryQuery}`, entryIntegrity]);
    const styles = Object.fromEntries(
      exposes.map(({ path, assets }) => [
        path,
        [...assets.css.sync, ...(assets.css.async ?? [])]
          .filter((css) => integrity[css])
          .map((css): [string, string] => [base + css, integrity[css]!]),
      ]),
    );
    const modules =
      pageModules &&
      Object.fromEntries(
        Object.entries(pageModules).map(([module, { file, imports, css }]) => [
          module,
          {
            js: [file, ...imports].map((path) => base + path),
            css: css.map((path): [string, string] => [base + path, integrity[path] ?? '']),
          },
        ]),
      );
    const build = { scripts, styles, checked: Object.keys(integrity).length > 0, modules };
    builds.set(entry, build);
    if (builds.size > 200) builds.delete(builds.keys().next().value!);
    return build;
  };

  /** The page's integrity elements for a manifest (made once per manifest object and shell build by the caller). */
  const forManifest = (manifest: RemotesManifest): PageIntegrity => {
    const integrity: Record<string, string> = {};
    const remotes: RemotesIntegrity = {};
    const pages: RemotesPageModules = {};
    for (const [remote, entry] of Object.entries(manifest) as [RemoteName, string][]) {
      const build = buildOf(remote, entry);
      if (!build) continue;
      if (build.modules) pages[remote] = { entry, modules: build.modules };
      if (!build.checked) continue;
      for (const [url, value] of build.scripts) integrity[url] = value;
      remotes[remote] = { entry, styles: build.styles };
    }
    const shared = sharedModules();
    const file = shared && `/${shared.file}`;
    const imports = shared && Object.fromEntries(shared.specifiers.map((name) => [name, `/${shared.file}`]));
    const checked = Object.keys(remotes).length > 0;
    if (!checked && !imports) return none;
    const importMap = JSON.stringify({ ...(imports ? { imports } : {}), ...(checked ? { integrity } : {}) }).replace(
      /</g,
      '\\u003c',
    );
    const scriptSource = `'sha256-${createHash('sha256').update(importMap).digest('base64')}'`;
    const data = JSON.stringify(remotes).replace(/</g, '\\u003c');
    const modules = Object.keys(pages).length
      ? `<script type="application/json" id="${pageModulesElementId}">${JSON.stringify(pages).replace(/</g, '\\u003c')}</script>`
      : '';
    return {
      head:
        `<script type="importmap">${importMap}</script>` +
        (checked ? `<script type="application/json" id="${integrityElementId}">${data}</script>` : '') +
        modules,
      scriptSource,
      sharedModules: file,
    };
  };
  return Object.assign(forManifest, { sharedModulesFile });
}

/** The page's head with its integrity elements first: an import map must come before any module the page loads. */
export const withIntegrity = (html: string, { head }: PageIntegrity) =>
  head ? html.replace(/<head>(\s*<meta charset="[^"]*" ?\/?>)?/i, (start) => `${start}${head}`) : html;

/** A page's policy allowing its import map, as an inline script allowed by its hash. */
export const allowingImportMap = (policy: string, { scriptSource }: PageIntegrity) =>
  scriptSource ? policy.replace(/(^|;)(\s*script-src [^;]*)/, `$1$2 ${scriptSource}`) : policy;

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { remoteEntryFile, remotes, type RemoteName, type RemotesManifest } from '@gift/federation';

/** Where deployed remotes are served when the site serves them itself; a CDN's address otherwise (REMOTES_BASE_URL). */
export const defaultRemotesBaseUrl = '/remotes/';

/**
 * A published version's name, as `pnpm release` makes them (`20261124.101500.123-3f9a0c1e`): letters, digits, dots,
 * dashes and underscores, never a path.
 */
export const isVersionName = (name: string) => /^[A-Za-z0-9][\w.-]{0,99}$/.test(name) && !name.includes('..');

/**
 * When a version was published, from its name (`pnpm release` names them `20261124.101500.123-3f9a0c1e`; the dot before
 * the milliseconds may be missing); undefined for a name of another form.
 */
export function publishedAt(version: string): Date | undefined {
  const match = /^(\d{4})(\d\d)(\d\d)\.(\d\d)(\d\d)(\d\d)\.?(\d{3})-/.exec(version);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second, ms] = match.slice(1).map(Number) as number[];
  return new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms!));
}

/** The folder of a published version of a remote under REMOTES_DIR. */
export const versionDir = (remotesDir: string, remote: RemoteName, version: string) =>
  join(remotesDir, remotes[remote].folder, version);

/**
 * Whether `version` of `remote` is here under `remotesDir`: a whole deployed build (its entry is there), or the server
 * build a site server fetched from the CDN (its federation manifest is there; browsers load the rest from the CDN).
 */
export const isPublished = (remotesDir: string, remote: RemoteName, version: string) =>
  isVersionName(version) &&
  [remoteEntryFile, 'mf-manifest.json'].some((file) => existsSync(join(versionDir(remotesDir, remote, version), file)));

/** The entry URL of a published version, where REMOTES_DIR is served: by the site at `/remotes/`, or by a CDN. */
export const versionEntryUrl = (remote: RemoteName, version: string, remotesBaseUrl = defaultRemotesBaseUrl) =>
  `${remotesBaseUrl}${remotes[remote].folder}/${version}/${remoteEntryFile}`;

/**
 * The version each remote is served with, by its folder: a deployed entry's version folder
 * (`.../vendor/20261124.101500123-3f9a0c1e/remoteEntry.js`), or a workspace build's content version (`?v=`).
 */
const liveVersions = new WeakMap<RemotesManifest, Readonly<Record<string, string>>>();
/** Read once per manifest object (a manifest source hands back the same object until it changes): not to be changed. */
export function liveVersionsOf(manifest: RemotesManifest): Readonly<Record<string, string>> {
  let versions = liveVersions.get(manifest);
  if (!versions) {
    versions = Object.fromEntries(
      Object.entries(manifest).map(([remote, entry]) => {
        const [path = '', query = ''] = entry.split('?');
        const version = new URLSearchParams(query).get('v') ?? path.split('/').at(-2) ?? '';
        return [remotes[remote as RemoteName]?.folder ?? remote, version];
      }),
    );
    liveVersions.set(manifest, versions);
  }
  return versions;
}

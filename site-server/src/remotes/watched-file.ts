import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** One inotify watch per folder, shared by every file of it that the server keeps in memory. */
const folders = new Map<string, { watcher: FSWatcher; listeners: Map<string, Set<() => void>> }>();

/**
 * Calls `onChange` whenever `path` may have changed: written, replaced by a rename (how releases switch the manifest),
 * removed or created. The folder is watched, not the file, so that a file replaced by another is still followed.
 * Returns false when the folder cannot be watched (it does not exist yet): the caller then checks on each use.
 */
function followChanges(path: string, onChange: () => void): boolean {
  const folder = dirname(path);
  let watched = folders.get(folder);
  if (!watched) {
    let watcher: FSWatcher;
    try {
      // Not persistent: a watch never keeps a process alive.
      watcher = watch(folder, { persistent: false });
    } catch {
      return false;
    }
    const listeners = new Map<string, Set<() => void>>();
    const created = { watcher, listeners };
    // The folder went away (a build empties its output folder by removing it): every file of it is read again, and
    // watched again once it is back. Linux reports that as a `rename` of the folder's own name, not as an error, and
    // the watch then sees nothing of the folder made in its place (which may even have the same inode number).
    const lost = () => {
      watcher.close();
      if (folders.get(folder) === created) folders.delete(folder);
      for (const set of listeners.values()) for (const listener of set) listener();
    };
    watcher.on('change', (event, name) => {
      if (event === 'rename' && String(name) === basename(folder)) return lost();
      // Without a name (the kernel's queue overflowed) any file of the folder may have changed.
      const names = name ? [String(name)] : [...listeners.keys()];
      for (const file of names) for (const listener of listeners.get(file) ?? []) listener();
    });
    watcher.on('error', lost);
    folders.set(folder, created);
    watched = created;
  }
  const name = basename(path);
  if (!watched.listeners.has(name)) watched.listeners.set(name, new Set());
  watched.listeners.get(name)!.add(onChange);
  return true;
}

export interface WatchedFile<T> {
  /** The parsed contents as the file is now; undefined when there is no such file. */
  (): T | undefined;
  /** Goes up each time the file changes: what was made from its contents is stale when it differs. */
  version(): number;
}

/**
 * A file's parsed contents, kept in memory and read again only after the file changes on disk: nothing is read or
 * even looked up per request. A file that cannot be parsed (caught half-written) is not kept: the next use reads it
 * again.
 */
export function watchedFile<T>(path: string, parse: (text: string) => T): WatchedFile<T> {
  let kept: { value: T | undefined } | undefined;
  let version = 0;
  let following = false;
  // When the folder does not exist, trying to watch it again is put off for a second: each failed try costs a system
  // call, and Node keeps the watcher it made for it (about 1.5 KB per request, for good, before this).
  let triedAt = -Infinity;
  const changed = () => {
    kept = undefined;
    version++;
    following = folders.has(dirname(path));
  };
  const read = (): T | undefined => {
    if (!following && performance.now() - triedAt >= 1000) {
      triedAt = performance.now();
      following = followChanges(path, changed);
      // What was read before the watch began may be stale already.
      if (following) kept = undefined;
    }
    if (kept && following) return kept.value;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      kept = { value: undefined };
      if (!following) version++;
      return undefined;
    }
    const value = parse(text);
    kept = { value };
    // Not followed: every use reads the file, and may find it changed.
    if (!following) version++;
    return value;
  };
  return Object.assign(read, { version: () => version });
}

/** Calls `onChange` on every change of `path`, as `watchedFile` follows them; false when it cannot be watched yet. */
export const onFileChange = followChanges;

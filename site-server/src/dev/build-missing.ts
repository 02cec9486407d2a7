import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remoteEntryFile, remotes } from '@gift/federation';

/** Builds each app whose build is missing or older than its sources (or the shared packages'). */
const root = fileURLToPath(new URL('../../..', import.meta.url));

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path)
    .filter((name) => name !== 'node_modules' && name !== 'dist')
    .reduce((newest, name) => Math.max(newest, newestChange(join(path, name))), stat.mtimeMs);
}

const sharedChange = Math.max(
  ...readdirSync(join(root, 'packages')).map((name) => newestChange(join(root, 'packages', name, 'src'))),
);

const apps = [
  { folder: 'shell', marker: 'index.html' },
  ...Object.values(remotes).map((remote) => ({ folder: remote.folder, marker: remoteEntryFile })),
].filter((app) => existsSync(join(root, app.folder, 'package.json')));

const stale = apps.filter((app) => {
  const marker = join(root, app.folder, 'dist', app.marker);
  if (!existsSync(marker)) return true;
  const sources = ['src', 'index.html', 'public', 'vite.config.mts'].map((name) =>
    newestChange(join(root, app.folder, name)),
  );
  return Math.max(sharedChange, ...sources) > statSync(marker).mtimeMs;
});

if (stale.length === 0) {
  console.log('Every app is built and up to date.');
} else {
  const verbose = process.argv.includes('--verbose') ? ['--verbose'] : [];
  const quietBuild = join(root, 'packages', 'cli-runner', 'bin', 'quiet-build.mjs');
  const folders = stale.map((app) => app.folder);
  const built = spawnSync(process.execPath, [quietBuild, ...folders, ...verbose], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

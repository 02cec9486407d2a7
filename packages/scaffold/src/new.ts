/**
 * `pnpm new remote <name>` and `pnpm new page <remote> <path> "<title>"`. A new remote also gets its packages
 * installed (the lockfile takes it in); lint, typecheck, the unit tests and `pnpm start` need nothing more.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pageRoutes, paths } from '@gift/content';
import { remotes, shellDevPort } from '@gift/federation';
import { newPage, newRemote, type Workspace } from './scaffold.ts';

const usage = `Usage:
  pnpm new remote <name> ["<what it serves>"]     a remote with no page yet (lower-case words and hyphens)
  pnpm new page <remote> <path> "<title>"        a page of that remote at that path`;

const workspace: Workspace = {
  root: fileURLToPath(new URL('../../../', import.meta.url)),
  remotes,
  routePaths: pageRoutes.map((route) => route.path),
  pathNames: Object.keys(paths),
  shellDevPort,
};

const [kind, ...args] = process.argv.slice(2);
try {
  if (kind === 'remote' && args[0]) {
    const folder = args[0];
    const written = newRemote(workspace, folder, args[1] ?? `The ${folder} remote.`);
    console.log(`Wrote ${written.join(', ')}.\nInstalling, so that the lockfile takes ${folder} in...`);
    // Not frozen even where CI=true would make it so: the lockfile is to take the new package in.
    execFileSync('pnpm', ['install', '--no-frozen-lockfile'], { cwd: workspace.root, stdio: 'inherit' });
    console.log(`\n${folder} is a remote. Give it a page: pnpm new page ${folder} /${folder} "<title>"`);
  } else if (kind === 'page' && args[0] && args[1] && args[2]) {
    const written = newPage(workspace, args[0], args[1], args[2]);
    console.log(
      `Wrote ${written.join(', ')}.\n\n${args[1]} is in the route table: pnpm start serves it, pnpm dev shows it.` +
        `\nWrite its description in packages/content/src/routes.ts, then its screenshots:` +
        ` pnpm build && pnpm --filter e2e test:screenshots --update-snapshots`,
    );
  } else {
    console.error(usage);
    process.exitCode = 2;
  }
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The site server's package, where the release commands and servers run from. */
export const siteServerDir = fileURLToPath(new URL('../site-server/', import.meta.url));

/**
 * A release command as a team types it (`pnpm release`, `promote`, `rollback`, `releases`, `preview-link`): its exit
 * code and everything it printed.
 */
export async function releaseCommand(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/releases/cli.ts', ...args], {
    cwd: siteServerDir,
    env,
  });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, printed };
}

/**
 * A server of the site-server package (`src/main.ts`, `src/dev/remotes-host-main.ts`) started with `env`; resolves once
 * `url` answers anything. Stop it with `kill('SIGTERM')`.
 */
export async function startServer(script: string, env: NodeJS.ProcessEnv, url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: siteServerDir,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGTERM');
  throw new Error(`${script} did not answer at ${url} within 30 s`);
}

/** An exposed page's own chunk (`privacy-page`), as the build's federation manifest names it. */
export function pageChunk(dist: string, page: string) {
  const federation = JSON.parse(readFileSync(join(dist, 'mf-manifest.json'), 'utf8')) as {
    exposes: { path: string; assets: { js: { sync: string[] } } }[];
  };
  const sync = federation.exposes.find((expose) => expose.path === `./${page}`)!.assets.js.sync;
  return join(
    dist,
    sync.find((file) => file.includes(page))!,
  );
}

/** The exposed privacy page's own chunk, as the build's federation manifest names it. */
export const privacyChunk = (dist: string) => pageChunk(dist, 'privacy-page');

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remotes } from '@gift/federation';

/** The site server's package, where the release commands and servers run from. */
export const siteServerDir = fileURLToPath(new URL('../site-server/', import.meta.url));

/**
 * A release command as a team types it (`pnpm release`, `promote`, `rollback`, `releases`, `preview-link`): its exit
 * code and everything it printed.
 */
export async function releaseCommand(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['bin/release.mjs', ...args], {
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
 * How long a journey may take that runs `checkedPromotes` promotes with their checks, and `rest` for everything else:
 * a promote's checks load eleven pages in Chromium, about 30 s on an idle 2-core machine and up to three times that
 * beside the other journeys' browsers (CI runs three workers on two cores).
 */
export const promoteTimeout = (checkedPromotes: number, rest = 60_000) => rest + checkedPromotes * 120_000;

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

/**
 * A page's own files in a build: its federation chunk, and its page module (what a first load runs, issue 79). A test
 * that changes how a page behaves in the browser changes both.
 */
export function pageFiles(dist: string, page: string) {
  const modules = JSON.parse(readFileSync(join(dist, 'page-modules.json'), 'utf8')) as Record<string, { file: string }>;
  return [pageChunk(dist, page), join(dist, modules[`./${page}`]!.file)];
}

/** Changes a page's files in a build alike (`pageFiles`: its federation chunk and its page module). */
export function rewritePage(dist: string, page: string, change: (text: string) => string) {
  for (const file of pageFiles(dist, page)) rewrite(file, change);
}

/** Changes a built file; its Brotli copy goes, so the change is what is served. */
export function rewrite(file: string, change: (text: string) => string) {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
  rmSync(`${file}.br`, { force: true });
}

/** The exposed privacy page's own chunk, as the build's federation manifest names it. */
export const privacyChunk = (dist: string) => pageChunk(dist, 'privacy-page');

/** Where the journeys' global setup published every remote once (`deployEveryRemote`), for each file to copy. */
const sharedDeployment = 'E2E_FIRST_DEPLOYMENT';

/**
 * Every remote deployed once into a new folder, as the first deployment of a site is made: `--prebuilt --force`,
 * nothing live to check against (the checks have journeys of their own), six teams side by side (the manifest is
 * switched under a lock). Made once per run by the journeys' global setup (global-setup.ts).
 */
export async function deployEveryRemote(name: string) {
  const deployDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REMOTES_DIR: join(deployDir, 'remotes'),
    REMOTES_MANIFEST: join(deployDir, 'remotes.json'),
  };
  await Promise.all(
    Object.values(remotes).map(async ({ folder }) => {
      const args = ['release', folder, '--prebuilt', '--force', '--reason', 'first deployment'];
      const { code, printed } = await releaseCommand(args, env);
      if (code !== 0) throw new Error(`${args.join(' ')}: ${printed}`);
    }),
  );
  process.env[sharedDeployment] = deployDir;
  return deployDir;
}

/**
 * A deploy folder of a journey file's own (so that files run side by side): a copy of the run's first deployment
 * (`deployEveryRemote`), its builds, manifest and records. `extra` joins the commands' environment; with a CDN's
 * REMOTES_BASE_URL the manifest names the CDN, as a first deployment made with it would.
 */
export async function firstDeployment(name: string, extra: NodeJS.ProcessEnv = {}) {
  const shared = process.env[sharedDeployment];
  if (!shared) throw new Error(`${sharedDeployment} is not set: the journeys' global setup did not run`);
  const deployDir = mkdtempSync(join(tmpdir(), `${name}-`));
  cpSync(shared, deployDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REMOTES_DIR: join(deployDir, 'remotes'),
    REMOTES_MANIFEST: join(deployDir, 'remotes.json'),
    ...extra,
  };
  const base = extra.REMOTES_BASE_URL;
  if (base) {
    const manifest = JSON.parse(readFileSync(env.REMOTES_MANIFEST!, 'utf8')) as Record<string, string>;
    for (const [remote, entry] of Object.entries(manifest)) manifest[remote] = entry.replace(/^\/remotes\//, base);
    writeFileSync(env.REMOTES_MANIFEST!, `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { deployDir, env };
}

/**
 * Publishes a candidate of the remote in `folder` made from its workspace build, changed by `change` (given the
 * copy's folder); resolves with its version.
 */
export async function publishChanged(folder: string, env: NodeJS.ProcessEnv, change: (dist: string) => void) {
  const dist = mkdtempSync(join(tmpdir(), `${folder}-candidate-`));
  try {
    cpSync(fileURLToPath(new URL(`../${folder}/dist/`, import.meta.url)), dist, { recursive: true });
    change(dist);
    const args = ['release', folder, '--candidate', '--from', dist];
    const { code, printed } = await releaseCommand(args, env);
    if (code !== 0) throw new Error(`${args.join(' ')}: ${printed}`);
    return /published (\S+) as a candidate/.exec(printed)![1]!;
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
}

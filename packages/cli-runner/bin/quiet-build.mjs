#!/usr/bin/env node
// `pnpm build`: every package's build, quietly (src/quiet-build.mjs), then the pages prerendered with `--prerender`.
// Folders named on the line are built alone; `--verbose` prints each build's own output as it comes.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildQuietly, buildablePackages } from '../src/quiet-build.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const named = args.filter((arg) => !arg.startsWith('--'));
if (!(await buildQuietly(named.length ? named : buildablePackages(root), { root, verbose }))) process.exit(1);
if (args.includes('--prerender')) {
  const prerender = spawnSync(process.execPath, ['--import', 'tsx', 'src/pages/prerender-cli.ts'], {
    cwd: `${root}site-server`,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  process.exitCode = prerender.status ?? 1;
}

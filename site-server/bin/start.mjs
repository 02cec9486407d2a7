#!/usr/bin/env node
// `pnpm start`: the apps whose build is missing or stale built (quietly; `--verbose` for each build's own output),
// the pages prerendered, then the site server as production runs it, with local stand-ins for production's settings.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cwd = fileURLToPath(new URL('..', import.meta.url));
const verbose = process.argv.includes('--verbose') ? ['--verbose'] : [];
for (const [script, env] of [
  ['src/dev/build-missing.ts', {}],
  ['src/pages/prerender-cli.ts', { NODE_ENV: 'production' }],
]) {
  const step = spawnSync(process.execPath, ['--import', 'tsx', script, ...verbose], {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (step.status !== 0) process.exit(step.status ?? 1);
}
process.argv = [...process.argv.filter((arg) => arg !== '--verbose'), '--local'];
await import('./site-server.mjs');

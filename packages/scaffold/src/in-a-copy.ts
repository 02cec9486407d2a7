/**
 * `pnpm test:scaffolds`: in a copy of the workspace (a clone of its last commit), `pnpm new remote` and `pnpm new
 * page`, then what must pass with no hand edit: the lockfile (`pnpm install --frozen-lockfile`), lint and format (of
 * the files they wrote or changed), typecheck, the new remote's unit tests, the build, and the new page served by the
 * site server with its heading. Slow (a few minutes: an install and a build), so CI runs it after the tests.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const workspace = fileURLToPath(new URL('../../../', import.meta.url));
const copy = join(mkdtempSync(join(tmpdir(), 'scaffold-')), 'workspace');
const started = Date.now();

function step(what: string, command: string, args: string[], cwd = copy) {
  const at = Date.now();
  process.stdout.write(`-- ${what}: ${command} ${args.join(' ')}\n`);
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  process.stdout.write(`   ok in ${((Date.now() - at) / 1000).toFixed(1)} s\n`);
}

try {
  step('a copy of the workspace', 'git', ['clone', '--quiet', '--shared', workspace, copy], workspace);
  step('its packages, from the store', 'pnpm', ['install', '--frozen-lockfile', '--prefer-offline']);
  step('a new remote', 'pnpm', ['new', 'remote', 'gift-cards', 'The gift cards remote.']);
  // A short title, whose generated description must still pass the route table's tests.
  step('a page of it', 'pnpm', ['new', 'page', 'gift-cards', '/gift-cards', 'Gift cards']);
  step('the lockfile took it in', 'pnpm', ['install', '--frozen-lockfile', '--prefer-offline']);
  // Lint what the scaffolds wrote or changed: the linter's rules read one file at a time (no type information), and
  // every other file is this commit's, which the test command lints. The whole copy took 112 s of a 347 s run.
  const written = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '-z'], {
    cwd: copy,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((entry) => entry && !entry.startsWith(' D'))
    .map((entry) => entry.slice(3));
  process.stdout.write(`-- what the scaffolds wrote or changed: ${written.length} files\n`);
  step('lint', 'pnpm', ['exec', 'eslint', '--max-warnings=0', '--no-warn-ignored', ...written]);
  step('format', 'pnpm', ['exec', 'prettier', '--check', '--ignore-unknown', ...written]);
  step('typecheck', 'pnpm', ['typecheck']);
  step('the unit tests of the new remote and of the route table', 'pnpm', [
    'exec',
    'vitest',
    'run',
    '--project',
    'gift-cards',
    '--project',
    'content',
  ]);
  step('the build', 'pnpm', ['build']);

  process.stdout.write('-- the site server serves the new page\n');
  const port = 4390 + Math.floor(Math.random() * 9);
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: join(copy, 'site-server'),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: join(copy, '.data') },
    stdio: 'ignore',
  });
  try {
    let html = '';
    for (let attempt = 0; attempt < 60 && !html; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      html = await fetch(`http://127.0.0.1:${port}/gift-cards`)
        .then((response) => (response.ok ? response.text() : ''))
        .catch(() => '');
    }
    if (!/<h1[^>]*>Gift cards<\/h1>/.test(html)) {
      throw new Error(`/gift-cards did not answer with its heading:\n${html.slice(0, 500)}`);
    }
    process.stdout.write('   ok: /gift-cards answers 200 with its h1, rendered by the server\n');
  } finally {
    server.kill();
  }
  console.log(`Scaffolds pass in a copy of the workspace (${((Date.now() - started) / 1000).toFixed(0)} s).`);
  rmSync(join(copy, '..'), { recursive: true, force: true });
} catch (error) {
  console.error(`Scaffolds failed in ${copy} (left there to look at): ${(error as Error).message}`);
  process.exitCode = 1;
}

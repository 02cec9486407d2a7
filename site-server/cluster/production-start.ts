/**
 * `pnpm test:deploy`: the site as an operator deploys it. The built workspace is copied to another folder (`cp -a`, as
 * a deploy step that ships a built tree does; its node_modules hard-linked); there, every remote is released with its checks (`pnpm release
 * <remote> --prebuilt`, through the copy's own pnpm shims) into a REMOTES_DIR outside both; then the copy's site server
 * is started as a process manager starts it: `node bin/site-server.mjs` in a clean environment (`env -i`: no pnpm, no
 * NODE_PATH). Every page's HTML must carry its heading from the server render, every answer under load (32 connections,
 * as `pnpm bench` measures it) must be 2xx, with no error in the server's log.
 * Prints a table; exits 1 when a check fails. Every process is stopped by its own pid; the folders are removed.
 */
import { execFileSync, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { examplePath, pageRoutes } from '@gift/content';
import { remotes } from '@gift/federation';
import { freePort, waitFor } from 'api/cluster/topology';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pnpm = process.env.npm_execpath;
if (!pnpm) throw new Error('Run it through pnpm (pnpm test:deploy): the releases run with the copy’s pnpm shims.');

type Row = { check: string; figures: string; ok: boolean };
const table: Row[] = [];
const check = (name: string, figures: string, ok: boolean) => table.push({ check: name, figures, ok });

const work = mkdtempSync(join(tmpdir(), 'deploy-check-'));
const copy = join(work, 'moved-site');
const deploy = {
  REMOTES_DIR: join(work, 'deploy', 'remotes'),
  REMOTES_MANIFEST: join(work, 'deploy', 'manifest.json'),
};
let server: ReturnType<typeof spawn> | undefined;

try {
  let began = Date.now();
  // The installed packages (500 MB) as hard links, as pnpm links them from its store in the first place: nothing here
  // writes into them, and a minute of copying them says nothing of the deploy.
  mkdirSync(copy);
  for (const entry of readdirSync(root)) {
    execFileSync('cp', [entry === 'node_modules' ? '-al' : '-a', join(root, entry), copy]);
  }
  check(
    'the built workspace copied to another folder',
    `cp -a in ${Date.now() - began} ms (node_modules hard-linked)`,
    true,
  );

  // The releases, each with its checks, as a team runs them in the copied workspace.
  for (const { folder } of Object.values(remotes)) {
    began = Date.now();
    let printed = '';
    let ok = true;
    try {
      printed = execFileSync(process.execPath, [pnpm, 'release', folder, '--prebuilt'], {
        cwd: copy,
        env: { ...process.env, ...deploy },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      ok = false;
      const failed = error as { stdout?: string; stderr?: string };
      printed = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    }
    const refusal = /^(?:Refused| {2}FAIL) .*$/m.exec(printed)?.[0];
    check(
      `pnpm release ${folder} --prebuilt in the copy`,
      ok ? `checks passed, live in ${((Date.now() - began) / 1000).toFixed(1)} s` : (refusal ?? printed.slice(-400)),
      ok,
    );
  }

  // Both servers started as their units start them with settings an operator got wrong: each refuses at once, on one
  // line naming every one of them and where to set them, with exit 78 (the units do not restart on it).
  const wrong = {
    'site-server/bin/site-server.mjs': [
      'PORT=abc',
      'PUBLIC_SITE_URL=notaurl',
      'PREVIEW_SECRET=short',
      'DATA_DIR=/proc/nope',
      'METRICS_TOKEN=x',
    ],
    'api/bin/api.mjs': ['API_PORT=99999', 'DATABASE_URL=notaurl', 'DATA_DIR=/proc/nope'],
  };
  for (const [bin, settings] of Object.entries(wrong)) {
    const refused = await startedAsTheUnit(join(copy, bin), settings);
    const names = settings.map((setting) => setting.split('=')[0]!);
    // No secret set either: production names the two it cannot run without.
    const named = [...names, 'COOKIE_SECRET', 'LOG_HASH_SECRET'].filter((name) => !refused.stderr.includes(name));
    const lines = refused.stderr.trim().split('\n');
    check(
      `node ${bin}, ${settings.join(' ')}, no secrets`,
      `exit ${refused.code} in ${refused.ms} ms, ${lines.length} line${lines.length === 1 ? '' : 's'}: ${lines[0]!.slice(0, 160)}…` +
        (named.length ? `; not named: ${named.join(', ')}` : ''),
      refused.code === 78 && lines.length === 1 && named.length === 0 && refused.stdout === '',
    );
  }

  // The copy's site server, started with nothing but what its unit file would give it.
  const port = await freePort();
  let log = '';
  began = Date.now();
  // `env -i` clears the environment, then sets only the NAME=value pairs before the command.
  server = spawn(
    '/usr/bin/env',
    [
      '-i',
      'PATH=/usr/bin:/bin',
      'HOME=/tmp',
      `PORT=${port}`,
      'HOST=127.0.0.1',
      `DATA_DIR=${join(work, 'data')}`,
      `REMOTES_DIR=${deploy.REMOTES_DIR}`,
      `REMOTES_MANIFEST=${deploy.REMOTES_MANIFEST}`,
      `PUBLIC_SITE_URL=http://127.0.0.1:${port}`,
      'COOKIE_SECRET=deploy-check-cookie-secret-0123456789abcdef',
      'LOG_HASH_SECRET=deploy-check-log-hash-secret-0123456789abcdef',
      process.execPath,
      'bin/site-server.mjs',
    ],
    { cwd: join(copy, 'site-server'), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await waitFor(`http://127.0.0.1:${port}/healthz`, 'The site server started with env -i', 60_000);
  check('node bin/site-server.mjs under env -i', `answered /healthz in ${Date.now() - began} ms`, true);

  for (const route of pageRoutes) {
    const path = examplePath(route);
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    const html = await response.text();
    const body = html.slice(html.indexOf('<div id="root"'));
    const headings = body.match(/<h1[\s>]/g)?.length ?? 0;
    const leaks = /data-(?:msg|stck)=/.test(html);
    check(
      `${path}: server-rendered`,
      `${response.status}, ${headings} h1 in the server's HTML${leaks ? ', an error message in the page' : ''}`,
      response.status === 200 && headings === 1 && !leaks,
    );
  }
  // Under load, as `pnpm bench` puts it (32 connections): every answer 2xx. How fast is the bench's to say.
  for (const path of ['/vendor', '/']) {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      connections: 32,
      duration: 3,
      headers: { 'accept-encoding': 'br' },
    });
    const bad = result.non2xx + result.errors + result.timeouts;
    check(
      `${path} under load`,
      `${result.requests.total} answers from 32 connections in 3 s, ${bad} not 2xx`,
      bad === 0,
    );
  }
  const errors = log.split('\n').filter((line) => /"level":(50|60)/.test(line) || /^\s*(Error|TypeError)\b/.test(line));
  check('the server’s log', errors.length ? errors[0]!.slice(0, 300) : 'no error line', errors.length === 0);
} catch (error) {
  check('deploy check', (error as Error).message.split('\n')[0]!, false);
} finally {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
}

const width = Math.max(...table.map((row) => row.check.length));
for (const row of table) console.log(`${row.ok ? 'ok  ' : 'FAIL'} ${row.check.padEnd(width)}  ${row.figures}`);
const failed = table.filter((row) => !row.ok).length;
console.log(failed ? `${failed} of ${table.length} checks failed` : `${table.length} checks passed`);
process.exitCode = failed ? 1 : 0;

/** A server started as its unit starts it (`env -i`, plain node) with `settings`, until it exits (30 s at most). */
async function startedAsTheUnit(bin: string, settings: string[]) {
  const began = Date.now();
  const child = spawn('/usr/bin/env', ['-i', 'PATH=/usr/bin:/bin', 'HOME=/tmp', ...settings, process.execPath, bin], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - began };
}

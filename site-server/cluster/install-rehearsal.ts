/**
 * `pnpm test:install` (root only; CI runs it): docs/operations.md's install, as an operator follows it, in a scratch
 * root. `ops/install.sh system` against a throwaway PostgreSQL, twice (the second run keeps everything), `ops/install.sh
 * code` (the built workspace as a version), then each unit started as systemd would start it: its ExecStart in its
 * WorkingDirectory, as its User, with only its EnvironmentFile and its UMask, in a mount namespace where the scratch
 * root's /etc/giftwell, /srv/giftwell and /var/lib/giftwell stand at their real places. Both must answer. Then an
 * upgrade (code again) and a rollback, and `systemd-analyze security` of both units (4.0 at most). Prints the
 * transcript and a table; exits 1 when a check fails. The servers are stopped by their own pids, the folders removed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from 'api/cluster/topology';
import { postgresServer } from 'api/test/databases';

const workspace = fileURLToPath(new URL('../..', import.meta.url));
type Row = { check: string; figures: string; ok: boolean };
const table: Row[] = [];
const check = (name: string, figures: string, ok: boolean) => table.push({ check: name, figures, ok });

if (process.getuid?.() !== 0) {
  console.log('The install rehearsal makes a user and mount namespaces: run it as root (CI does).');
  process.exit(0);
}

const root = mkdtempSync(join(tmpdir(), 'install-rehearsal-'));
// The scratch root's own account files, as a fresh Debian has them: root alone.
mkdirSync(join(root, 'etc'));
writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
writeFileSync(join(root, 'etc/shadow'), 'root:*:20000:0:99999:7:::\n', { mode: 0o640 });
writeFileSync(join(root, 'etc/gshadow'), 'root:*::\n', { mode: 0o640 });

const postgres = await postgresServer();
if (!postgres) throw new Error('No PostgreSQL here (apt-get install postgresql)');
const pgPort = new URL(postgres.url).port;
const psql = existsSync('/usr/bin/psql') ? '/usr/bin/psql' : '/usr/lib/postgresql/15/bin/psql';
const installEnv = { ...process.env, ROOT: root, PSQL: `${psql} ${postgres.url}`, PG_PORT: pgPort, LINK_MODULES: '1' };
const transcript: string[] = [];
const install = (...args: string[]) => {
  const printed = execFileSync(join(workspace, 'ops/install.sh'), args, { env: installEnv, encoding: 'utf8' });
  transcript.push(`# ops/install.sh ${args.join(' ')}`, printed.trimEnd());
  return printed;
};

/** The places a unit names, in a namespace of their own: the scratch root's folders mounted where they belong. */
const places = ['/etc/giftwell', '/srv/giftwell', '/var/lib/giftwell'];
/** The machine's accounts as the scratch root has them (the giftwell user), over the host's in the namespace. */
const accounts = ['/etc/passwd', '/etc/group'];
const madeHere = places.filter((place) => !existsSync(place));
const servers: ChildProcess[] = [];

/**
 * `unshare`'s arguments that run the shell `command` (its arguments `args`, as "$@") in a mount namespace of its own,
 * where the scratch root's folders and accounts stand where the units and commands look for them.
 */
const inNamespace = (command: string, ...args: string[]) => [
  '--mount',
  '--propagation',
  'private',
  'sh',
  '-c',
  `${[...places, ...accounts].map((place) => `mount --bind ${root}${place} ${place}`).join(' && ')} && exec ${command}`,
  'rehearsal',
  ...args,
];

/** The scratch root's `giftwell` command, as an operator runs it with sudo. */
const operatorCommand = (...args: string[]) =>
  execFileSync('unshare', inNamespace('"$@"', join(root, 'usr/local/bin/giftwell'), ...args), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** A unit of the scratch root started as systemd starts it. */
function startUnit(unit: string) {
  const text = readFileSync(join(root, 'etc/systemd/system', unit), 'utf8');
  const field = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)?.[1] ?? '';
  const [uid, gid] = execFileSync(
    'awk',
    ['-F:', `$1 == "${field('User')}" { print $3 " " $4 }`, join(root, 'etc/passwd')],
    {
      encoding: 'utf8',
    },
  )
    .trim()
    .split(' ');
  // The env file as systemd reads it: NAME=value lines, comments and blank lines left out.
  const settings = readFileSync(join(root, field('EnvironmentFile')), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line));
  const start = `umask ${field('UMask')} && cd ${field('WorkingDirectory')} && exec ${field('ExecStart')}`;
  const child = spawn(
    'unshare',
    inNamespace(`setpriv --reuid ${uid} --regid ${gid} --clear-groups env -i "$@" sh -c '${start}'`, ...settings),
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  servers.push(child);
  return { log: () => log, uid: Number(uid) };
}

/**
 * The first answer of `url` that is `settled` (any answer by default), within `ms`; the last one seen otherwise. A
 * site server listens before it has migrated (503 "waiting for the database schema"), and says what it is once it has.
 */
async function answers(url: string, settled = (_answer: { status: number; body: string }) => true, ms = 60_000) {
  const began = Date.now();
  let last = { status: 0, body: 'no answer' };
  while (Date.now() - began < ms) {
    try {
      const response = await fetch(url);
      last = { status: response.status, body: await response.text() };
      if (settled(last)) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { ...last, ms: Date.now() - began };
}

/** Sets NAME=value in an env file of the scratch root, as an operator edits it. */
function edit(file: string, name: string, value: string) {
  const path = join(root, 'etc/giftwell', file);
  writeFileSync(path, readFileSync(path, 'utf8').replace(new RegExp(`^${name}=.*$`, 'm'), `${name}=${value}`));
}

try {
  for (const place of madeHere) mkdirSync(place, { recursive: true });
  const first = install('system');
  check(
    'ops/install.sh system',
    first
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0])
      .join(', '),
    true,
  );
  const again = install('system');
  const kept = /^kept\s+user/m.test(again) && /^kept\s+.*site\.env/m.test(again);
  check('ops/install.sh system, again', kept ? 'user and env files kept, nothing made twice' : again, kept);
  const site = join(root, 'etc/giftwell/site.env');
  const modes = ['site.env', 'api.env'].map((name) =>
    (statSync(join(root, 'etc/giftwell', name)).mode & 0o777).toString(8),
  );
  const secrets = ['COOKIE_SECRET', 'LOG_HASH_SECRET', 'PREVIEW_SECRET'].every((name) =>
    new RegExp(`^${name}=[0-9a-f]{64}$`, 'm').test(readFileSync(site, 'utf8')),
  );
  check(
    'the env files',
    `modes ${modes.join(' and ')}, secrets ${secrets ? 'made' : 'missing'}`,
    modes.every((mode) => mode === '600') && secrets,
  );

  // What an operator sets by hand: this machine's address, and ports free here.
  const [sitePort, apiPort] = [await freePort(), await freePort()];
  edit('site.env', 'PORT', String(sitePort));
  edit('api.env', 'API_PORT', String(apiPort));
  for (const file of ['site.env', 'api.env']) edit(file, 'PUBLIC_SITE_URL', `http://127.0.0.1:${sitePort}`);

  install('code');
  const firstVersion = readlinkSync(join(root, 'srv/giftwell/site'));
  check('ops/install.sh code', `/srv/giftwell/site -> ${firstVersion}`, firstVersion.startsWith('releases/'));

  const siteUnit = startUnit('giftwell-site.service');
  const apiUnit = startUnit('giftwell-api.service');
  const ready = ({ status, body }: { status: number; body: string }) =>
    status === 200 || (status === 503 && /no release is live/.test(body));
  const health = await answers(`http://127.0.0.1:${sitePort}/healthz`, ready);
  check(
    'giftwell-site.service as systemd starts it',
    `/healthz ${health.status} in ${health.ms} ms: ${health.body.slice(0, 120)}`,
    ready(health),
  );
  const apiHealth = await answers(`http://127.0.0.1:${apiPort}/api/health`);
  check(
    'giftwell-api.service as systemd starts it',
    `/api/health ${apiHealth.status} in ${apiHealth.ms} ms: ${apiHealth.body.slice(0, 120)}`,
    apiHealth.status === 200,
  );
  const data = statSync(join(root, 'var/lib/giftwell'));
  check(
    '/var/lib/giftwell',
    `owner ${data.uid} (the unit's user ${siteUnit.uid}), mode ${(data.mode & 0o777).toString(8)}`,
    data.uid === siteUnit.uid && (data.mode & 0o777) === 0o700,
  );
  const listed = operatorCommand('requests', 'list');
  check('sudo giftwell requests list', listed.trim().split('\n')[0]!.slice(0, 120), true);
  const releases = operatorCommand('releases');
  check('sudo giftwell releases', releases.trim().split('\n')[0]!.slice(0, 120), true);
  const errors = [siteUnit.log(), apiUnit.log()]
    .join('\n')
    .split('\n')
    .filter((line) => /"level":(50|60)|^Not started|through tsx/.test(line));
  // "through tsx": the tree's bundles were older than its sources, and the unit's user cannot write new ones.
  check(
    'the servers’ logs',
    errors[0]?.slice(0, 200) ?? 'no error line, both started from their bundles',
    errors.length === 0,
  );

  install('code');
  const upgraded = readlinkSync(join(root, 'srv/giftwell/site'));
  install('rollback');
  const rolledBack = readlinkSync(join(root, 'srv/giftwell/site'));
  check(
    'an upgrade, then a rollback',
    `${firstVersion} -> ${upgraded} -> ${rolledBack}`,
    upgraded !== firstVersion && rolledBack === firstVersion,
  );

  for (const unit of ['giftwell-site.service', 'giftwell-api.service']) {
    let printed = '';
    try {
      printed = execFileSync('systemd-analyze', ['security', '--offline=true', join(workspace, 'ops/systemd', unit)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      printed = String((error as { stdout?: string }).stdout ?? '');
    }
    const score = /Overall exposure level for \S+: ([\d.]+) (\w+)/.exec(printed);
    check(
      `systemd-analyze security ${unit}`,
      score ? `${score[1]} ${score[2]}` : 'not measured (no systemd-analyze)',
      !score || Number(score[1]) <= 4,
    );
  }
} catch (error) {
  check('install rehearsal', (error as Error).message.split('\n').slice(0, 3).join(' '), false);
} finally {
  for (const server of servers) {
    if (server.exitCode !== null) continue;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    process.kill(-server.pid!, 'SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
  postgres.stop();
  for (const place of madeHere) rmdirSync(place);
  rmSync(root, { recursive: true, force: true });
}

console.log(transcript.join('\n'));
console.log();
const width = Math.max(...table.map((row) => row.check.length));
for (const row of table) console.log(`${row.ok ? 'ok  ' : 'FAIL'} ${row.check.padEnd(width)}  ${row.figures}`);
process.exit(table.every((row) => row.ok) ? 0 : 1);

/**
 * `pnpm bench restart`: how long a restarted server takes to answer its health check, as production runs it: a site
 * server following PostgreSQL with its builds from a CDN (nginx), and an API instance, started as the systemd units
 * start them (`api/cluster/topology.ts`), median of BENCH_RESTART_RUNS (5) starts each, measured alternately in one
 * run: before (the TypeScript through tsx, as production started them until 2026-12-02), after (the bundle `pnpm
 * build` made), and the server floor (a bare Fastify that answers its health check: what any Node server costs to
 * start here). Goal (issue 77): a restart answers within 2 s.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMigratedDatabase } from 'api';
import {
  cdnServerBlock,
  freePort,
  productionEnv,
  sleep,
  startNginxWith,
  startProcess,
  stopAll,
} from 'api/cluster/topology';
import { postgresDatabaseUrl, postgresServer } from 'api/test/databases';
import { remoteNames } from '@gift/federation';
import { cdnReleaseSettings } from '../src/ledger/switches.ts';
import { release } from '../src/releases/release.ts';

const runs = Number(process.env.BENCH_RESTART_RUNS ?? 5);
const goalMs = 2_000;
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = import.meta.resolve('tsx');

const postgres = await postgresServer();
if (!postgres) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
const databaseUrl = await postgresDatabaseUrl(postgres.url);
const db = await openMigratedDatabase({ databaseUrl, dataDir: '' });
const origin = mkdtempSync(join(tmpdir(), 'bench-restart-cdn-'));
const cdn = await startNginxWith((port) => cdnServerBlock(port, origin), '/ready');
const base = `${cdn}/remotes/`;
const settings = cdnReleaseSettings(root, db, origin, base);
for (const remote of remoteNames) await release(settings, remote, { prebuilt: true, force: { reason: 'bench' } });
const dataDir = mkdtempSync(join(tmpdir(), 'bench-restart-site-'));

interface Way {
  name: string;
  args: (port: number) => string[];
  cwd: string;
  env: (port: number) => NodeJS.ProcessEnv;
  path: string;
}
const site = (port: number) => ({
  ...productionEnv,
  PORT: String(port),
  DATABASE_URL: databaseUrl,
  DATA_DIR: dataDir,
  REMOTES_BASE_URL: base,
  REMOTE_ORIGINS: cdn,
  RELEASE_WATCH_MINUTES: '0',
});
const api = (port: number) => ({ ...productionEnv, API_PORT: String(port), DATABASE_URL: databaseUrl });
const floor = `import Fastify from 'fastify';
const app = Fastify();
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });`;
const siteDir = join(root, 'site-server');
const apiDir = join(root, 'api');
const ways: Way[] = [
  {
    name: 'site server, before (tsx)',
    args: () => ['--import', tsx, 'src/main.ts'],
    cwd: siteDir,
    env: site,
    path: '/healthz',
  },
  {
    name: 'site server, after (bundle)',
    args: () => ['bin/site-server.mjs'],
    cwd: siteDir,
    env: site,
    path: '/healthz',
  },
  {
    name: 'API, before (tsx)',
    args: () => ['--import', tsx, 'src/main.ts'],
    cwd: apiDir,
    env: api,
    path: '/api/health',
  },
  { name: 'API, after (bundle)', args: () => ['bin/api.mjs'], cwd: apiDir, env: api, path: '/api/health' },
  {
    name: 'server floor (bare Fastify)',
    args: () => ['--input-type=module', '-e', floor],
    cwd: siteDir,
    env: (port) => ({ ...productionEnv, PORT: String(port) }),
    path: '/healthz',
  },
];

/** Starts `way` and resolves with the milliseconds until its health check answers 200; stops it. */
async function timeToAnswer(way: Way): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = startProcess(process.execPath, way.args(port), way.env(port), {
    cwd: way.cwd,
    clean: true,
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}${way.path}`)).ok) return performance.now() - started;
      } catch {
        // not listening yet
      }
      if (child.exitCode !== null) throw new Error(`${way.name} exited ${child.exitCode}`);
      if (performance.now() - started > 60_000) throw new Error(`${way.name} did not answer within 60 s`);
      await sleep(20);
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const times = new Map(ways.map((way) => [way.name, [] as number[]]));
try {
  // One start of each first, unmeasured: the build cache filled, the page cache warm, as a restart finds them.
  for (const way of ways) await timeToAnswer(way);
  for (let run = 0; run < runs; run++) for (const way of ways) times.get(way.name)!.push(await timeToAnswer(way));
} finally {
  await stopAll();
  await db.destroy();
  postgres.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const floorMs = median(times.get('server floor (bare Fastify)')!);
console.log(
  `\nA restart to its first 200 on the health check, median of ${runs}, alternating (PostgreSQL, builds from a CDN)`,
);
console.log(`| ${'way'.padEnd(30)} | ${'median'.padStart(9)} | ${'runs'.padEnd(40)} | floor × |`);
console.log(`| ${'-'.repeat(30)} | ${'-'.repeat(9)} | ${'-'.repeat(40)} | ------- |`);
for (const way of ways) {
  const all = times.get(way.name)!;
  const ms = median(all);
  console.log(
    `| ${way.name.padEnd(30)} | ${`${ms.toFixed(0)} ms`.padStart(9)} | ${all
      .map((value) => value.toFixed(0))
      .join(', ')
      .padEnd(40)} | ${(ms / floorMs).toFixed(2).padStart(7)} |`,
  );
}
for (const name of ['site server, after (bundle)', 'API, after (bundle)']) {
  const ms = median(times.get(name)!);
  if (ms > goalMs) console.log(`MISSED ${name}: a restart answers in ${ms.toFixed(0)} ms, goal ${goalMs} ms`);
}

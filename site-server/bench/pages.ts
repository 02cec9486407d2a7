import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { remoteNames } from '@gift/federation';
import { promote, publishCandidate, release } from '../src/releases/release.ts';
import { testIdOf, visitorAt } from '../src/rollouts/cohorts.ts';
import { browserAgent } from '../src/watch/test-road.ts';

/**
 * Pages per second from the site server as production runs it (`src/main.ts`, NODE_ENV=production, request logs on)
 * beside the server floor (a bare Fastify sending the same bytes from memory, `floor-server.ts`), each in a process
 * of its own, measured alternately in one run with autocannon on 127.0.0.1. Prints req/s, p50 and p99 latency and
 * the ratio to the floor's median.
 */
const seconds = Number(process.env.BENCH_PAGE_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_PAGE_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_PAGE_CONNECTIONS ?? 32);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

const children: ChildProcess[] = [];
async function start(script: string, args: string[], env: NodeJS.ProcessEnv, probe: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: packageDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  for (let tries = 0; tries < 300; tries++) {
    try {
      if ((await fetch(probe)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${script} did not answer at ${probe}`);
}

const paths = ['/vendor', '/'];
/** The site server as production starts it, on a port of its own; `env` adds to or overrides its settings. */
async function startSite(env: NodeJS.ProcessEnv = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await start(
    'src/main.ts',
    [],
    {
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      PUBLIC_SITE_URL: url,
      LOG_HASH_SECRET: 'b'.repeat(32),
      COOKIE_SECRET: 'c'.repeat(32),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-pages-')),
      ...env,
    },
    `${url}/vendor`,
  );
  return url;
}
const site = await startSite();

/** The bytes the site server sends for `path`, as they travel (node:http does not decode them, unlike fetch). */
const rawBytes = (path: string, encoding: string) =>
  new Promise<string>((resolve, reject) => {
    get(`${site}${path}`, { headers: { 'accept-encoding': encoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('base64')));
    }).on('error', reject);
  });

// The floor holds exactly the bytes the site server answers with.
const pages: Record<string, { br: string; identity: string }> = {};
for (const path of paths) pages[path] = { br: await rawBytes(path, 'br'), identity: await rawBytes(path, 'identity') };
const pagesFile = join(mkdtempSync(join(tmpdir(), 'bench-floor-')), 'pages.json');
writeFileSync(pagesFile, JSON.stringify(pages));
const floorPort = await freePort();
const floor = `http://127.0.0.1:${floorPort}`;
await start('bench/floor-server.ts', [pagesFile], { PORT: String(floorPort) }, `${floor}/vendor`);

interface Figure {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function measure(url: string, encoding: string | undefined): Promise<Figure> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: encoding ? { 'accept-encoding': encoding } : {},
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const cases = [
  ...paths.map((path) => ({ path, encoding: 'br' as string | undefined, label: `${path}, br` })),
  { path: '/vendor', encoding: undefined, label: '/vendor, identity' },
];

// Warm both (JIT, the kept forms) before measuring.
for (const base of [floor, site]) await autocannon({ url: `${base}/vendor`, connections, duration: 2 });

console.log(
  `Pages: ${connections} connections, ${seconds} s a run, ${rounds} rounds alternating floor and site, medians\n`,
);
const rows: string[][] = [];
/**
 * The goals (`pnpm bench` exits non-zero past one): at least half of the floor's pages per second and a p99 under 50
 * ms on every case. BENCH_GOAL_PAGES_SHARE and BENCH_GOAL_PAGES_P99_MS move them (a goal out of reach shows a miss).
 */
const goals = {
  share: Number(process.env.BENCH_GOAL_PAGES_SHARE ?? 0.5),
  p99Ms: Number(process.env.BENCH_GOAL_PAGES_P99_MS ?? 50),
};
const missed: string[] = [];
for (const { path, encoding, label } of cases) {
  const floorRuns: Figure[] = [];
  const siteRuns: Figure[] = [];
  for (let round = 0; round < rounds; round++) {
    floorRuns.push(await measure(`${floor}${path}`, encoding));
    siteRuns.push(await measure(`${site}${path}`, encoding));
  }
  const summary = (runs: Figure[]) => ({
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
  });
  const [f, s] = [summary(floorRuns), summary(siteRuns)];
  if (s.rps / f.rps < goals.share) {
    missed.push(
      `pages ${label}: ${((s.rps / f.rps) * 100).toFixed(0)} % of the floor's req/s (goal at least ${goals.share * 100} %)`,
    );
  }
  if (s.p99 >= goals.p99Ms) missed.push(`pages ${label}: p99 ${s.p99} ms (goal under ${goals.p99Ms} ms)`);
  rows.push([
    label,
    Math.round(f.rps).toLocaleString('en'),
    Math.round(s.rps).toLocaleString('en'),
    `${Math.round((s.rps / f.rps) * 100)} %`,
    `${f.p50} / ${f.p99}`,
    `${s.p50} / ${s.p99}`,
    String(s.non2xx),
  ]);
}
const header = [
  'page',
  'floor req/s',
  'site req/s',
  'site/floor',
  'floor p50 / p99 ms',
  'site p50 / p99 ms',
  'site non-2xx',
];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
console.log([line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n'));

/**
 * Pages with a rollout in progress: the same server twice on deployed builds (REMOTES_DIR, REMOTES_MANIFEST), once
 * as it is and once with a rollout of vendor at 25%, each asked for `/vendor` by ten visitors in turn, at places 0, 10, ...
 * 90 of the rollout (so a quarter of the rollout's answers are the canary's page), measured alternately. BENCH_PAGE_ROLLOUT=0 skips it.
 */
if (process.env.BENCH_PAGE_ROLLOUT !== '0') {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  // The rollout's own id: the visitors are placed in it (ids at places 0, 10, ..., 90).
  let testId = 'no rollout';
  const deployed = async (rollout: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-deployed-'));
    const settings = { root, remotesDir: join(dir, 'remotes'), manifestFile: join(dir, 'remotes.json') };
    const force = { reason: 'the pages bench' };
    for (const remote of remoteNames) await release(settings, remote, { prebuilt: true, force });
    if (rollout) {
      const canary = await publishCandidate(settings, 'vendor', { from: join(root, 'vendor', 'dist') });
      const started = await promote(settings, 'vendor', canary, {
        force,
        rollout: { stages: [25, 100], stageMinutes: 600 },
      });
      testId = testIdOf(started.rollout!);
    }
    return startSite({
      DATA_DIR: join(dir, 'data'),
      REMOTES_DIR: settings.remotesDir,
      REMOTES_MANIFEST: settings.manifestFile,
    });
  };
  const servers = [
    { label: 'no rollout', url: await deployed(false) },
    { label: 'vendor at 25%', url: await deployed(true) },
  ];
  const visitors = Array.from({ length: 10 }, (_, index) => ({
    method: 'GET' as const,
    path: '/vendor',
    headers: { 'accept-encoding': 'br', 'user-agent': browserAgent, cookie: `cohort=${visitorAt(testId, index * 10)}` },
  }));
  const rolloutRun = async (url: string) =>
    (await autocannon({ url, connections, duration: seconds, requests: visitors })).requests.average;
  for (const { url } of servers) await autocannon({ url, connections, duration: 2, requests: visitors });
  const runs = servers.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [index, { url }] of servers.entries()) runs[index]!.push(await rolloutRun(url));
  }
  const [without, within] = runs.map(median) as [number, number];
  console.log(`\nWith a rollout in progress: /vendor, br, 10 visitors in turn, deployed builds, medians\n`);
  console.log('| server        | req/s  | of no rollout |');
  console.log('| ------------- | ------ | ------------- |');
  for (const [index, { label }] of servers.entries()) {
    const rps = median(runs[index]!);
    console.log(
      `| ${label.padEnd(13)} | ${Math.round(rps).toLocaleString('en').padStart(6)} | ${`${Math.round((rps / without) * 100)} %`.padStart(13)} |`,
    );
  }
  console.log(`Goal: a rollout costs at most 10%: ${within >= 0.9 * without ? 'met' : 'missed'}.`);
  if (within < 0.9 * without)
    missed.push(`pages: a rollout costs ${100 - Math.round((within / without) * 100)} % (goal at most 10 %)`);
}

/**
 * What each layer of the site server costs: the floor with the site's layers added one at a time (see
 * floor-server.ts), `/vendor` with brotli, measured alternately with the site itself. BENCH_PAGE_LAYERS=0 skips it.
 */
if (process.env.BENCH_PAGE_LAYERS !== '0') {
  const steps = ['headers', 'host', 'log', 'cookies', 'compress'];
  const floors: { label: string; url: string }[] = [{ label: 'floor', url: `${floor}/vendor` }];
  for (let step = 1; step <= steps.length; step++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    await start(
      'bench/floor-server.ts',
      [pagesFile],
      { PORT: String(port), FLOOR_LAYERS: steps.slice(0, step).join(','), PUBLIC_SITE_URL: site },
      `${url}/vendor`,
    );
    floors.push({ label: `+ ${steps[step - 1]}`, url: `${url}/vendor` });
  }
  floors.push({ label: 'site server', url: `${site}/vendor` });
  for (const { url } of floors) await autocannon({ url, connections, duration: 2 });
  const runs = new Map(floors.map(({ label }) => [label, [] as number[]]));
  for (let round = 0; round < rounds; round++) {
    for (const { label, url } of floors) runs.get(label)!.push((await measure(url, 'br')).rps);
  }
  console.log(`\nWhat each layer costs: /vendor, br, the floor with the site's layers added one at a time, medians\n`);
  console.log('| server         | req/s  | of the floor |');
  console.log('| -------------- | ------ | ------------ |');
  const base = median(runs.get('floor')!);
  for (const { label } of floors) {
    const rps = median(runs.get(label)!);
    console.log(
      `| ${label.padEnd(14)} | ${Math.round(rps).toLocaleString('en').padStart(6)} | ${`${Math.round((rps / base) * 100)} %`.padStart(12)} |`,
    );
  }
}

/**
 * What `/metrics` costs: two fresh site servers, one with METRICS=off, measured alternately (which goes first swaps
 * every round) on `/vendor` with brotli; besides pages per second, the CPU time each server's process spent per page
 * (from /proc), which the other tenants of a shared host disturb less. The target: pages per second with metrics at
 * least 97% of without. BENCH_PAGE_METRICS=0 skips it.
 */
if (process.env.BENCH_PAGE_METRICS !== '0') {
  const cpuSeconds = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const servers = [];
  for (const [label, env] of [
    ['metrics on', {}],
    ['metrics off', { METRICS: 'off' }],
  ] as const) {
    const url = `${await startSite(env)}/vendor`;
    servers.push({ label, url, pid: children.at(-1)!.pid! });
  }
  // A scrape first, so that the families are made as they are under Prometheus.
  await fetch(`${servers[0]!.url.replace('/vendor', '/metrics')}`);
  for (const { url } of servers) await autocannon({ url, connections, duration: 2 });
  const runs = servers.map(() => ({ rps: [] as number[], cpuUs: [] as number[] }));
  const metricRounds = Math.max(rounds, 6);
  for (let round = 0; round < metricRounds; round++) {
    const order = round % 2 ? [1, 0] : [0, 1];
    for (const index of order) {
      const { url, pid } = servers[index]!;
      const before = cpuSeconds(pid);
      const result = await autocannon({ url, connections, duration: seconds, headers: { 'accept-encoding': 'br' } });
      runs[index]!.rps.push(result.requests.average);
      runs[index]!.cpuUs.push(((cpuSeconds(pid) - before) / result.requests.total) * 1e6);
    }
  }
  const [on, off] = runs.map((run) => ({ rps: median(run.rps), cpuUs: median(run.cpuUs) })) as [
    { rps: number; cpuUs: number },
    { rps: number; cpuUs: number },
  ];
  console.log(`\nWhat /metrics costs: /vendor, br, two fresh servers, ${metricRounds} rounds alternating, medians\n`);
  console.log('| server      | req/s  | of metrics off | CPU per page | of metrics off |');
  console.log('| ----------- | ------ | -------------- | ------------ | -------------- |');
  for (const [index, { label }] of servers.entries()) {
    const figures = index === 0 ? on : off;
    console.log(
      `| ${label.padEnd(11)} | ${Math.round(figures.rps).toLocaleString('en').padStart(6)} | ${`${((figures.rps / off.rps) * 100).toFixed(1)} %`.padStart(14)} | ${`${figures.cpuUs.toFixed(1)} µs`.padStart(12)} | ${`${((figures.cpuUs / off.cpuUs) * 100).toFixed(1)} %`.padStart(14)} |`,
    );
  }
  console.log(
    `Goal: pages per second with metrics at least 97% of without: ${on.rps >= 0.97 * off.rps ? 'met' : 'missed'}.`,
  );
  if (on.rps < 0.97 * off.rps) {
    missed.push(
      `pages: with /metrics ${((on.rps / off.rps) * 100).toFixed(1)} % of the req/s without (goal at least 97 %)`,
    );
  }
}

for (const child of children) child.kill('SIGTERM');
console.log(
  `\nGoals: at least ${goals.share * 100} % of the floor's req/s and p99 under ${goals.p99Ms} ms on every page; a rollout and /metrics as above`,
);
for (const miss of missed) console.log(`MISSED ${miss}`);
if (missed.length) process.exitCode = 1;
// An answer other than 2xx is a fault, whatever the figures.
if (rows.some((row) => row[6] !== '0')) {
  console.error('The site server answered with errors under load: see the last column.');
  process.exitCode = 1;
}

#!/usr/bin/env node
// `pnpm bench`: every speed figure of the site beside its floor, each printed with its goal, on a quiet machine.
// CI checks behaviour (`.ci/run`); this measures time, which on a shared two-core host follows the machine as much
// as the code. Runs each bench in turn, passes its output through, and ends with a table of the steps and every goal
// missed (a bench prints `MISSED <goal>` for each); exits 1 when a goal is missed or a bench fails.
// `pnpm bench pages field-data` runs the named steps alone.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** The steps, in the order they run: what each measures, and the command (run in the workspace's root). */
const steps = [
  {
    name: 'prepare',
    what: 'the builds that are missing or stale, the React floor, the prerendered pages',
    command: 'pnpm --filter site-server build-missing && pnpm --filter react-floor build && pnpm prerender',
  },
  {
    name: 'pages',
    what: "pages per second and p99 beside the server floor, a rollout's and /metrics' cost",
    // The layers' table (what each of the site server's layers costs) is a diagnosis, not a goal: `pnpm bench:pages`.
    command: 'BENCH_PAGE_LAYERS=0 pnpm --filter site-server bench',
  },
  {
    name: 'api',
    what: 'deletion requests per second beside the framework ceiling',
    command: 'pnpm --filter api bench',
  },
  {
    name: 'field-data',
    what: "ingestion p99 under load, health during the roll-up, the release watch's look stall",
    // The look stall over 400,000 stored reports, as CI's test command measured it until 2026-12-01; the bytes stored
    // and the storage of a million are CI's (they are no time).
    command: 'FIELD_BENCH=timing FIELD_LOOK_REPORTS=400000 FIELD_LOOK_SECONDS=5 pnpm --filter api bench:field-data',
  },
  { name: 'read-commands', what: "the teams' read commands, as typed", command: 'pnpm --filter site-server bench:cli' },
  {
    name: 'restart',
    what: 'a restarted site server and API instance to their health check, beside the server floor',
    command: 'pnpm --filter site-server build && pnpm --filter api build && pnpm --filter site-server bench:restart',
  },
  {
    name: 'first-paint',
    what: "first paint and hydrated beside the React floor (phone profile), the main thread's long tasks",
    // The 6x CPU table is printed, not judged: `pnpm --filter e2e perf:interactive` prints it.
    command: 'SLOWER=0 pnpm --filter e2e perf:interactive',
  },
  {
    name: 'content-floor',
    what: 'first paint over 21 rounds beside the React floor and the page less its composition (printed, not judged)',
    command: 'pnpm --filter e2e perf:content-floor',
  },
  {
    name: 'navigation',
    what: 'the first client-side visit from / on the phone profile, after a hover too (NAV_BEFORE_ROOT: beside another checkout)',
    command: 'pnpm --filter e2e perf:navigation',
  },
  {
    name: 'lighthouse',
    what: 'Lighthouse Performance and TBT (wall clock and CPU time) beside the React floor',
    command: 'pnpm --filter e2e perf:lighthouse',
  },
  {
    name: 'engines',
    what: 'client-side visits from / in Chromium, Firefox and WebKit (printed, not judged)',
    command: 'pnpm --filter e2e perf:engines',
  },
  {
    name: 'collector',
    what: "the field-data collector's longest task (phone profile)",
    command: 'pnpm --filter e2e perf:field-data',
  },
];

const named = process.argv.slice(2);
const unknown = named.filter((name) => !steps.some((step) => step.name === name));
if (unknown.length) {
  console.error(`pnpm bench: no step named ${unknown.join(', ')}; the steps: ${steps.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const chosen = named.length ? steps.filter((step) => step.name === 'prepare' || named.includes(step.name)) : steps;

/**
 * Runs a step with its output passed through; resolves with its exit code and the goals it reported missed.
 * @param {(typeof steps)[number]} step
 * @returns {Promise<{ code: number; missed: string[] }>}
 */
function run(step) {
  return new Promise((resolve) => {
    // The timing benches judge their timings here (PERF_MODE and BENCH_TIMING unset): that is what this command is for.
    const env = { ...process.env };
    delete env.PERF_MODE;
    delete env.PERF_TIMING;
    delete env.BENCH_TIMING;
    const child = spawn('bash', ['-c', step.command], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {string[]} */
    const missed = [];
    let pending = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('MISSED ')) missed.push(line.slice(7));
    });
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    child.on('close', (code) => {
      if (pending.startsWith('MISSED ')) missed.push(pending.slice(7));
      resolve({ code: code ?? 1, missed });
    });
  });
}

const started = performance.now();
const results = [];
for (const step of chosen) {
  console.log(`\n== ${step.name}: ${step.what}\n   ${step.command}`);
  const began = performance.now();
  const { code, missed } = await run(step);
  results.push({ ...step, code, missed, seconds: (performance.now() - began) / 1000 });
  if (step.name === 'prepare' && code !== 0) break;
}

const minutes = (/** @type {number} */ seconds) =>
  `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
console.log(`\n== pnpm bench: ${minutes((performance.now() - started) / 1000)} in all`);
console.log('| step          | time    | exit | goals missed |');
console.log('| ------------- | ------- | ---- | ------------ |');
for (const { name, seconds, code, missed } of results) {
  console.log(
    `| ${name.padEnd(13)} | ${minutes(seconds).padStart(7)} | ${String(code).padStart(4)} | ${String(missed.length).padStart(12)} |`,
  );
}
const missed = results.flatMap((result) => result.missed);
const failed = results.filter((result) => result.code !== 0 && !result.missed.length);
for (const line of missed) console.log(`MISSED ${line}`);
for (const { name, code } of failed)
  console.log(`FAILED ${name}: exit ${code} without a goal missed (see its output above)`);
if (missed.length || failed.length) process.exit(1);
console.log('Every goal met.');

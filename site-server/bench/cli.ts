import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `pnpm bench:cli`: how long the teams' read commands take to answer, median of BENCH_CLI_RUNS (5) runs each,
 * measured alternately in one run: before (the TypeScript through tsx, as the commands ran until 2026-11-27), after
 * (the launcher and its bundle, what `pnpm <command>` runs now) and, when pnpm is on PATH, `pnpm <command>` as a team
 * types it. On a deploy folder of its own with legal released once (no checks), and the API's data in it.
 */
const runs = Number(process.env.BENCH_CLI_RUNS ?? 5);
/** Issue 58's goal for what a team types (`pnpm <command>`, or the bundle where pnpm is not on PATH). */
const goalSeconds = Number(process.env.BENCH_GOAL_CLI_SECONDS ?? 1.5);
const missed: string[] = [];
const workspace = fileURLToPath(new URL('../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'bench-cli-'));
const env = {
  ...process.env,
  REMOTES_DIR: join(root, 'remotes'),
  REMOTES_MANIFEST: join(root, 'remotes.json'),
  DATA_DIR: join(root, 'data'),
  PREVIEW_SECRET: 'bench-preview-secret-0123456789abcdef0123',
};
const siteServer = join(workspace, 'site-server');
const api = join(workspace, 'api');

const released = execFileSync(
  process.execPath,
  ['bin/release.mjs', 'release', 'legal', '--prebuilt', '--force', '--reason', 'bench'],
  { cwd: siteServer, env: { ...env, NODE_ENV: 'production' }, encoding: 'utf8' },
);
const version = /-> (\S+)/.exec(released)?.[1] ?? /legal: (\S+)/.exec(released)![1]!;

interface Way {
  name: string;
  command: string;
  args: string[];
  cwd: string;
}
/** Each command: its entry, its launcher and arguments, in its package; what a team types after `pnpm`. */
const table = [
  { name: 'releases', entry: 'src/releases/cli.ts', bin: 'bin/release.mjs', args: ['releases'] },
  { name: 'releases legal', entry: 'src/releases/cli.ts', bin: 'bin/release.mjs', args: ['releases', 'legal'] },
  {
    name: 'rollout legal status',
    entry: 'src/releases/cli.ts',
    bin: 'bin/release.mjs',
    args: ['rollout', 'legal', 'status'],
  },
  {
    name: 'preview-link legal <version>',
    entry: 'src/releases/cli.ts',
    bin: 'bin/release.mjs',
    args: ['preview-link', 'legal', version],
  },
  { name: '--filter api rum --since 1h', entry: 'src/field-data/cli.ts', bin: 'bin/rum.mjs', args: ['--since', '1h'] },
  { name: '--filter api requests list', entry: 'src/cli/requests.ts', bin: 'bin/requests.mjs', args: ['list'] },
];
const commands = table.map(({ name, entry, bin, args }) => {
  const cwd = entry.startsWith('src/releases/') ? siteServer : api;
  const typed = name.replace('<version>', version).split(' ');
  const ways: Way[] = [
    { name: 'before (tsx)', command: process.execPath, args: ['--import', 'tsx', entry, ...args], cwd },
    { name: 'after (bundle)', command: process.execPath, args: [bin, ...args], cwd },
  ];
  if (pnpmOnPath()) ways.push({ name: 'pnpm <command>', command: 'pnpm', args: typed, cwd: workspace });
  return { name: `pnpm ${name}`, ways };
});

function pnpmOnPath() {
  return (process.env.PATH ?? '').split(':').some((dir) => existsSync(join(dir, 'pnpm')));
}

/** Seconds one run of `way` takes, from the start to its exit; a failed command stops the bench. */
function time(way: Way) {
  const started = process.hrtime.bigint();
  const result = spawnSync(way.command, way.args, { cwd: way.cwd, env, encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0)
    throw new Error(`${way.command} ${way.args.join(' ')}: exit ${result.status}\n${result.stderr}`);
  return seconds;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1]!;

try {
  // One run of each way first, not counted: a bundle built, a cache filled.
  for (const { ways } of commands) for (const way of ways) time(way);
  const header = ['command', ...commands[0]!.ways.map((way) => way.name)];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => ' --- ').join('|')}|`);
  for (const { name, ways } of commands) {
    const seconds: number[][] = ways.map(() => []);
    for (let run = 0; run < runs; run++) ways.forEach((way, index) => seconds[index]!.push(time(way)));
    console.log(`| ${name} | ${seconds.map((values) => `${median(values).toFixed(2)} s`).join(' | ')} |`);
    const typed = median(seconds.at(-1)!);
    if (typed > goalSeconds)
      missed.push(
        `read commands: ${name} took ${typed.toFixed(2)} s (${ways.at(-1)!.name}; goal within ${goalSeconds} s)`,
      );
  }
  console.log(
    `\nMedian of ${runs} runs each, the ways alternating; the goal (issue 58): each within ${goalSeconds} s as a team types it (the last column).`,
  );
  for (const miss of missed) console.log(`MISSED ${miss}`);
  if (missed.length) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}

import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startPackageScript } from '@gift/cli-runner/quiet-build';
import { devPorts, remoteNames, remotes } from '@gift/federation';

/**
 * `pnpm dev`: every app's dev server (the shell, each remote), the API and its mail catcher, each from its package's
 * own `dev` script. Their start-up chatter is held back (`--verbose` prints it); the three addresses are printed once
 * every server answers (an address printed before would be opened before it answers: the API takes up to 30 s). After
 * that each app's lines are printed as they come, after its name (hot updates, errors). A server that stops stops the
 * others, with its output.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const verbose = process.argv.includes('--verbose');
const ports = devPorts(process.env);
const apps = [
  { folder: 'shell', port: ports.shell },
  ...remoteNames.map((name) => ({ folder: remotes[name].folder, port: ports.remote(name) })),
  // The API's dev start listens once MailDev does: its health answers when both are up.
  { folder: 'api', port: ports.api, path: '/api/health' },
];
const width = Math.max(...apps.map((app) => app.folder.length));
const addresses = [
  `  Site  http://localhost:${ports.site}`,
  `  API   http://127.0.0.1:${ports.api}/api/health`,
  `  Mail  http://127.0.0.1:${ports.mail}  (every email the site sends in development)`,
].join('\n');

console.log(
  `Starting ${apps.length} dev servers${verbose ? '' : ' (--verbose for their start-up output)'}; their addresses ` +
    'follow once every one answers.',
);
let ready = false;
const held = new Map<string, string[]>();
const children: ChildProcess[] = apps.map(({ folder }) => {
  const { child } = startPackageScript(root, folder, 'dev', { exec: true });
  held.set(folder, []);
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const shown = `${folder.padEnd(width)} | ${line}`;
        if (ready || verbose) console.log(shown);
        else held.get(folder)!.push(shown);
      }
    });
  }
  child.on('exit', (code, signal) => {
    if (stopping) return;
    for (const line of held.get(folder) ?? []) console.log(line);
    console.error(`${folder} stopped (${signal ?? `exit ${code}`}): stopping the others.`);
    stop(code || 1);
  });
  return child;
});

let stopping = false;
function stop(code: number) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  process.exitCode = code;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop(0));

/** Resolves when `http://127.0.0.1:<port><path>` answers at all. */
async function answering(port: number, path = '/') {
  for (;;) {
    if (stopping) return;
    try {
      await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

const started = performance.now();
await Promise.all(apps.map((app) => answering(app.port, app.path)));
if (!stopping) {
  ready = true;
  console.log(
    `\nEvery dev server answers (${((performance.now() - started) / 1000).toFixed(1)} s); edits show at once:\n\n` +
      `${addresses}\n`,
  );
}

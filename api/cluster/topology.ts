import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/databases.ts';

export { freePort };

/**
 * The pieces of the tested deployment on 127.0.0.1, for `pnpm test:cluster` and `pnpm bench`: API instances as
 * processes of their own and nginx from Debian's package in front of them. Each process is stopped by its own pid.
 */

const apiDir = new URL('..', import.meta.url).pathname;
export const nginxBin = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(url: string, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error(`${what} did not answer at ${url} within ${timeoutMs} ms`);
}

const children: ChildProcess[] = [];
let stopping = false;

function start(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  { cwd = apiDir, output }: { cwd?: string; output?: (text: string) => void } = {},
): ChildProcess {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', output ? 'pipe' : 'ignore', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => output?.(chunk.toString()));
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-2000)));
  child.on('exit', (code) => {
    if (code && !stopping) console.error(`${command} ${args.join(' ')} exited ${code}: ${errors}`);
  });
  children.push(child);
  return child;
}

/** One API instance (`src/main.ts`) on `port` with `env`; resolves once it answers its health check. */
export async function startApi(port: number, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = start(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    API_PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...env,
  });
  await waitFor(`http://127.0.0.1:${port}/api/health`, `The API on ${port}`);
  return child;
}

/**
 * nginx from Debian's package on a free port of 127.0.0.1, with `config` (the upstreams and the `server` block, given
 * the port and a private folder) inside its `http` block; resolves with its address once `readyPath` answers.
 */
export async function startNginxWith(config: (port: number, prefix: string) => string, readyPath: string) {
  if (!nginxBin) throw new Error('nginx is not installed (apt-get install nginx-light)');
  const port = await freePort();
  const prefix = mkdtempSync(join(tmpdir(), 'cluster-nginx-'));
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
worker_processes 1;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
${config(port, prefix)}
}
`,
  );
  start(nginxBin, ['-p', prefix, '-c', join(prefix, 'nginx.conf')]);
  const address = `http://127.0.0.1:${port}`;
  await waitFor(`${address}${readyPath}`, 'nginx');
  return address;
}

export const prometheusBin = ['/usr/bin/prometheus', '/usr/sbin/prometheus'].find((path) => existsSync(path));
export const promtoolBin = ['/usr/bin/promtool', '/usr/sbin/promtool'].find((path) => existsSync(path));

/** One sample of a PromQL instant query: its labels and value. */
export type Sample = { metric: Record<string, string>; value: number };

/**
 * Prometheus from Debian's package on a free port of 127.0.0.1, scraping each job's targets (`host:port`) every second,
 * evaluating `ruleFiles` every second, with its data in a folder of its own; resolves once it is ready, with its
 * address and a PromQL instant query.
 */
export async function startPrometheus(jobs: Record<string, string[]>, ruleFiles: string[] = []) {
  if (!prometheusBin) throw new Error('Prometheus is not installed (apt-get install prometheus)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cluster-prometheus-'));
  const scrapes = Object.entries(jobs).map(
    ([job, targets]) => `  - job_name: ${job}
    static_configs:
      - targets: [${targets.map((target) => `'${target}'`).join(', ')}]`,
  );
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files: [${ruleFiles.map((file) => `'${file}'`).join(', ')}]
scrape_configs:
${scrapes.join('\n')}
`,
  );
  start(prometheusBin, [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/-/ready`, 'Prometheus', 60_000);
  /** The answer to a PromQL instant query now: its samples (an empty list when nothing matches). */
  const query = async (promql: string): Promise<Sample[]> => {
    const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (body.status !== 'success') throw new Error(`PromQL ${promql}: ${body.error ?? response.status}`);
    return body.data!.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
  };
  return { url, query };
}

/** nginx balancing `/api/` over the instances on `ports`; resolves with its address once it answers. */
export const startNginx = (ports: number[]): Promise<string> =>
  startNginxWith(
    (port) => `  upstream api {
${ports.map((upstream) => `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=10s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location /api/ {
      proxy_pass http://api;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      # A connection refused by a dead instance was never sent: the next instance gets it, POST or not.
      proxy_next_upstream error timeout;
      proxy_connect_timeout 1s;
    }
  }`,
    '/api/health/live',
  );

/**
 * A process of the cluster, stopped with the others by `stopAll`: its exit with an error is reported with the end of
 * its stderr; `output` hears its stdout.
 */
export { start as startProcess };

/** Stops every process started here: SIGTERM, then SIGKILL for any still running. */
export async function stopAll() {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  await sleep(500);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

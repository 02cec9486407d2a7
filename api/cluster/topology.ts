import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/databases.ts';

export { freePort };

/**
 * The pieces of the tested deployment on 127.0.0.1, for `pnpm test:cluster` and `pnpm bench`: API instances as
 * processes of their own and nginx from Debian's package in front of them. Each process is stopped by its own pid.
 */

const apiDir = new URL('..', import.meta.url).pathname;
const siteServerDir = new URL('../../site-server', import.meta.url).pathname;

/**
 * What every server of the tested deployment is given, as ops/gifting.env gives it to the systemd units (with this
 * machine's stand-ins for the secrets): nothing else of this process's environment reaches them (no pnpm, no
 * NODE_PATH), as `systemd` passes none.
 */
export const productionEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/tmp',
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  PUBLIC_SITE_URL: 'http://127.0.0.1',
  COOKIE_SECRET: 'cluster-cookie-secret-0123456789abcdef',
  LOG_HASH_SECRET: 'cluster-log-hash-secret-0123456789abcdef',
};
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
  { cwd = apiDir, output, clean = false }: { cwd?: string; output?: (text: string) => void; clean?: boolean } = {},
): ChildProcess {
  const child = spawn(command, args, {
    cwd,
    env: clean ? env : { ...process.env, ...env },
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

/**
 * One API instance as its systemd unit starts it (`node api/bin/api.mjs`, ops/gifting-api.service) on `port`, with
 * `env` over `productionEnv`; resolves once it answers its health check.
 */
export async function startApi(
  port: number,
  env: NodeJS.ProcessEnv,
  { output }: { output?: (text: string) => void } = {},
): Promise<ChildProcess> {
  const child = start(
    process.execPath,
    ['bin/api.mjs'],
    { ...productionEnv, API_PORT: String(port), ...env },
    { output, clean: true },
  );
  await waitFor(`http://127.0.0.1:${port}/api/health`, `The API on ${port}`);
  return child;
}

/**
 * One site server as its systemd unit starts it (`node site-server/bin/site-server.mjs`, ops/gifting-site.service) on
 * `port`, with `env` over `productionEnv`; `output` hears its stdout and stderr. It answers at once (see `waitFor`).
 */
export function startSiteServer(port: number, env: NodeJS.ProcessEnv, output?: (text: string) => void) {
  const child = start(
    process.execPath,
    ['bin/site-server.mjs'],
    { ...productionEnv, PORT: String(port), ...env },
    { cwd: siteServerDir, output, clean: true },
  );
  child.stderr?.on('data', (chunk: Buffer) => output?.(chunk.toString()));
  return child;
}

/** nginx's `server` block for the CDN's origin: REMOTES_DIR `origin` at `/remotes/`, and `/ready`. */
export const cdnServerBlock = (port: number, origin: string) => `  server {
    listen 127.0.0.1:${port};
    location /remotes/ {
      alias ${origin}/;
      types { text/javascript js mjs; text/css css; application/json json; image/svg+xml svg; image/webp webp; font/woff2 woff2; }
      add_header Access-Control-Allow-Origin *;
    }
    location = /ready { return 204; }
  }`;

/** An nginx upstream of the servers on `ports`, each passed over for `failTimeout` once it fails. */
const upstreamBlock = (name: string, ports: number[], failTimeout: string) => `  upstream ${name} {
${ports.map((upstream) => `    server 127.0.0.1:${upstream} max_fails=1 fail_timeout=${failTimeout};`).join('\n')}
    keepalive 16;
  }`;

/** nginx's proxy settings for every location, and the API's location. */
const proxied = `    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_connect_timeout 1s;
    location /api/ {
      proxy_pass http://api;
      # A connection refused by a dead instance was never sent: the next instance gets it, POST or not.
      proxy_next_upstream error timeout;
    }`;

/**
 * nginx in front of the site servers and the API instances on `sites` and `apis` (their ports), as
 * docs/operations.md configures it: a server that is down or not ready (503) is passed over for `failTimeout`.
 */
export const frontBlock = (
  port: number,
  sites: number[],
  apis: number[],
  failTimeout = '5s',
) => `${upstreamBlock('site', sites, failTimeout)}
${upstreamBlock('api', apis, failTimeout)}
  server {
    listen 127.0.0.1:${port};
${proxied}
    location / {
      proxy_pass http://site;
      # A server that is down (refused, reset) or not ready (503) is passed over: the next one answers.
      proxy_next_upstream error timeout http_502 http_503;
      add_header X-Site-Server $upstream_addr always;
    }
  }`;

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

/**
 * The rule files a check's Prometheus evaluates: the recording rules as shipped (ops/prometheus), and the alert rules
 * as shipped but for their `for:`, 2 s each, so that an alert a fault causes is seen firing within the check.
 */
export function rulesForChecks() {
  const dir = new URL('../../ops/prometheus/', import.meta.url).pathname;
  const alerts = readFileSync(join(dir, 'alerts.yml'), 'utf8');
  const scaled = join(mkdtempSync(join(tmpdir(), 'check-rules-')), 'alerts.yml');
  writeFileSync(scaled, alerts.replace(/^(\s+for:) \d+[smh]$/gm, '$1 2s'));
  return [scaled, join(dir, 'recording.yml')];
}

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
    (port) => `${upstreamBlock('api', ports, '10s')}
  server {
    listen 127.0.0.1:${port};
${proxied}
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

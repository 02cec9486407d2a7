/**
 * `pnpm test:faults`: the faults of issue 59, each with bounded traffic, on the cluster check's topology: PostgreSQL,
 * two API instances and two site servers started as production starts them (plain `node`), nginx in front of both, a
 * second nginx as the CDN, an SMTP sink and a webhook receiver that checks signatures. Every process runs under a
 * supervisor that starts it again 2 s after it dies, as systemd's `Restart=on-failure` does. Prints the fault table:
 * answers by status during and after, the slowest write, recovery, acknowledged vs stored, mails and webhook events
 * delivered vs expected, duplicates, restarts. Exits 1 when a page is not 200 during a database fault, a write hangs
 * past its bound, anything acknowledged is lost or sent twice, a process dies of a database fault, or recovery takes
 * over 5 s. Every process is stopped by its own pid when it ends.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openMigratedDatabase, type Db } from 'api';
import * as topology from 'api/cluster/topology';
import { postgresDatabaseUrl, postgresServer } from 'api/test/databases';
import { startSmtpSink, type ReceivedEmail } from 'api/test/smtp-sink';
import { signatureProblem } from '@gift/contracts/webhooks';
import { remoteNames } from '@gift/federation';
import { cdnReleaseSettings } from '../src/ledger/switches.ts';
import { promote, publishCandidate, release } from '../src/releases/release.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const webhookSecret = 'faults-webhook-secret-0123456789abcdef';

/** One supervised process: started again 2 s after it dies, unless the suite stops it. */
interface Supervised {
  name: string;
  port: number;
  child?: ChildProcess;
  restarts: number;
  log: string;
  start: () => void;
}

/** Where the traffic goes, which database keeps what it sends, and the processes that serve it. */
interface Target {
  url: string;
  db: Db;
  processes: Supervised[];
  sites: Supervised[];
}

type Answer = { kind: 'page' | 'post'; status: number | 'no answer' | 'error'; ms: number; at: number; email?: string };

interface Fault {
  name: string;
  /** Worst time a write may take to be answered during the fault (its timeouts, and a margin). */
  writeBoundMs: number;
  /** Whether pages must all be 200 during it (every fault of the database, a site server killed). */
  pagesMustAnswer: boolean;
  /** Whether the site servers' connection following the releases breaks: it must read them again within 5 s. */
  releasesReconnect?: 'from its start' | 'from its end';
  /** Answers a write may get besides 202 and 503, and why. */
  alsoAllowed?: { status: Answer['status']; why: string };
  /** Where the traffic goes (the cluster's nginx unless said). */
  target?: () => Target;
  /** Looked at once the fault has lasted its time, before it ends: a problem, if any. */
  check?: () => Promise<string | undefined>;
  /** Looked at after recovery: what it found, and a problem if any. */
  after?: () => Promise<{ found: string; problem?: string }>;
  /** Why the fault cannot be caused on this machine, if it cannot: the row says so and fails nothing. */
  notHere?: () => string | undefined;
  /** Whether a mail sent twice fails the suite (not for a kill between the send and its record: the same id). */
  duplicatesAllowed?: string;
  /** How long mail may take to catch up after the fault ends (the retry delay after a failed send). */
  catchUpBoundMs: number;
  begin: () => Promise<void> | void;
  end: () => Promise<void> | void;
  durationMs: number;
}

type Row = {
  fault: string;
  pages: string;
  posts: string;
  slowestWrite: string;
  recovery: string;
  stored: string;
  mails: string;
  webhooks: string;
  duplicates: string;
  restarts: number;
  problems: string[];
};

async function main() {
  const postgres = await postgresServer();
  if (!postgres?.faults) throw new Error('The fault suite needs a throwaway PostgreSQL (apt-get install postgresql)');
  const { faults: database } = postgres;
  const databaseUrl = await postgresDatabaseUrl(postgres.url);
  const db = await openMigratedDatabase({ databaseUrl, dataDir: '' });
  const admin = () => new pg.Client({ connectionString: databaseUrl });

  // --- the CDN, every remote released to it, as in the cluster check
  const origin = mkdtempSync(join(tmpdir(), 'faults-cdn-'));
  const cdn = await topology.startNginxWith((port) => topology.cdnServerBlock(port, origin), '/ready');
  // The CDN as the site servers reach it: a relay to the nginx origin, which a fault makes answer 500 or go away.
  let cdnAnswers500 = false;
  const cdnPort = await topology.freePort();
  const cdnRelay = (): Promise<Server> =>
    new Promise((resolve) => {
      const server = createServer((request, response) => {
        if (cdnAnswers500) return void response.writeHead(500).end();
        fetch(`${cdn}${request.url}`).then(
          async (upstream) => {
            const headers: Record<string, string> = {};
            for (const name of ['content-type', 'access-control-allow-origin', 'etag', 'last-modified']) {
              const value = upstream.headers.get(name);
              if (value) headers[name] = value;
            }
            response.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()));
          },
          () => response.writeHead(502).end(),
        );
      }).listen(cdnPort, '127.0.0.1', () => resolve(server));
    });
  let cdnServer = await cdnRelay();
  const cdnAddress = `http://127.0.0.1:${cdnPort}`;
  const base = `${cdnAddress}/remotes/`;
  const settings = cdnReleaseSettings(root, db, origin, base);
  for (const remote of remoteNames)
    await release(settings, remote, { prebuilt: true, force: { reason: 'fault suite: first deploy' } });

  // --- the mail server and the webhook receiver, each able to go away and come back on its port
  const received: ReceivedEmail[] = [];
  const smtpPort = await topology.freePort();
  let smtp = await startSmtpSink({ delayMs: 20, port: smtpPort, received });
  const events: string[] = [];
  const forged: string[] = [];
  const webhookPort = await topology.freePort();
  const receiver = (): Promise<Server> =>
    new Promise((resolve) => {
      const server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          const id = String(request.headers['giftwell-event-id'] ?? '');
          const problem = signatureProblem(body, request.headers['giftwell-signature'] as string, [webhookSecret]);
          (problem ? forged : events).push(id);
          response.writeHead(problem ? 401 : 204).end();
        });
      }).listen(webhookPort, '127.0.0.1', () => resolve(server));
    });
  let webhooks = await receiver();

  // --- two API instances and two site servers, supervised
  const shared = {
    DATABASE_URL: databaseUrl,
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/events`,
    WEBHOOK_SECRET: webhookSecret,
    WEBHOOK_TIMEOUT_MS: '2000',
    OUTBOX_INTERVAL_MS: '200',
    // nginx is one hop; the traffic plays the clients' own proxy, so that it can be many addresses.
    TRUST_PROXY: '2',
    ALLOWED_ORIGINS: '*',
  };
  let stopping = false;
  const supervise = (name: string, port: number, command: string[], env: NodeJS.ProcessEnv, cwd: string) => {
    const process_: Supervised = { name, port, restarts: 0, log: '', start: () => {} };
    process_.start = () => {
      const child = topology.startProcess(
        command[0]!,
        command.slice(1),
        { ...topology.productionEnv, ...shared, ...env },
        {
          cwd,
          clean: true,
          output: (text) => (process_.log = (process_.log + text).slice(-20_000)),
        },
      );
      child.stderr?.on('data', (chunk: Buffer) => (process_.log = (process_.log + chunk.toString()).slice(-20_000)));
      child.on('exit', () => {
        if (stopping) return;
        process_.restarts++;
        setTimeout(() => !stopping && process_.start(), 2_000);
      });
      process_.child = child;
    };
    process_.start();
    return process_;
  };
  const apis = await Promise.all(
    [0, 1].map(async (index) => {
      const port = await topology.freePort();
      return supervise(
        `api-${index}`,
        port,
        [process.execPath, 'bin/api.mjs'],
        { API_PORT: String(port) },
        join(root, 'api'),
      );
    }),
  );
  const sites = await Promise.all(
    [0, 1].map(async (index) => {
      const port = await topology.freePort();
      return supervise(
        `site-${index}`,
        port,
        [process.execPath, 'bin/site-server.mjs'],
        {
          PORT: String(port),
          DATA_DIR: mkdtempSync(join(tmpdir(), `faults-site-${index}-`)),
          REMOTES_BASE_URL: base,
          REMOTE_ORIGINS: cdnAddress,
          RELEASE_WATCH_MINUTES: '0',
        },
        join(root, 'site-server'),
      );
    }),
  );
  for (const api of apis) await topology.waitFor(`http://127.0.0.1:${api.port}/api/health`, api.name, 60_000);
  for (const site of sites) await topology.waitFor(`http://127.0.0.1:${site.port}/healthz`, site.name, 60_000);
  const front = await topology.startNginxWith(
    (port) =>
      topology.frontBlock(
        port,
        sites.map((site) => site.port),
        apis.map((api) => api.port),
        '2s',
      ),
    '/healthz',
  );

  const cluster: Target = { url: front, db, processes: [...apis, ...sites], sites };
  let target = cluster;

  // --- traffic: a page every 100 ms and a deletion request every 200 ms, each from its own client address
  let client = 0;
  const answers: Answer[] = [];
  async function ask(kind: Answer['kind']) {
    const at = Date.now();
    const address = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client++ & 255}`;
    const email = kind === 'post' ? `fault-${client}@example.com` : undefined;
    const pages = ['/', '/vendor', '/privacy', '/business'];
    try {
      const response = await fetch(
        kind === 'page' ? `${target.url}${pages[client % pages.length]}` : `${target.url}/api/delete-account`,
        {
          method: kind === 'page' ? 'GET' : 'POST',
          headers: { 'x-forwarded-for': address, ...(kind === 'post' ? { 'content-type': 'application/json' } : {}) },
          body: kind === 'post' ? JSON.stringify({ name: 'Fault Test', email, reason: 'fault suite' }) : undefined,
          signal: AbortSignal.timeout(15_000),
        },
      );
      await response.arrayBuffer();
      answers.push({ kind, status: response.status, ms: Date.now() - at, at, email });
    } catch (error) {
      const status = (error as Error).name === 'TimeoutError' ? 'no answer' : 'error';
      answers.push({ kind, status, ms: Date.now() - at, at, email });
    }
  }
  function traffic() {
    const inFlight: Promise<void>[] = [];
    const pages = setInterval(() => inFlight.push(ask('page')), 100);
    const posts = setInterval(() => inFlight.push(ask('post')), 200);
    return async () => {
      clearInterval(pages);
      clearInterval(posts);
      await Promise.all(inFlight);
    };
  }

  /** Waits until nothing is left to send (or `boundMs` passes): how long it took. */
  async function caughtUp(boundMs: number) {
    const started = Date.now();
    while (Date.now() - started < boundMs) {
      const [mail, hooks] = await Promise.all([
        target.db
          .selectFrom('email_outbox')
          .select('id')
          .where('sent_at', 'is', null)
          .where('failed_at', 'is', null)
          .execute(),
        target.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('delivered_at', 'is', null)
          .where('failed_at', 'is', null)
          .execute(),
      ]);
      if (mail.length === 0 && hooks.length === 0) return Date.now() - started;
      await topology.sleep(200);
    }
    return Infinity;
  }

  const seconds = (ms: number) => (ms === Infinity ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const statusesOf = (list: Answer[]) => {
    const counts = new Map<string, number>();
    for (const answer of list) counts.set(String(answer.status), (counts.get(String(answer.status)) ?? 0) + 1);
    return [...counts].map(([status, count]) => `${count}×${status}`).join(' ') || '-';
  };

  const table: Row[] = [];
  const notRun: Row = {
    fault: '',
    pages: '',
    posts: '-',
    slowestWrite: '-',
    recovery: '-',
    stored: '-',
    mails: '-',
    webhooks: '-',
    duplicates: '-',
    restarts: 0,
    problems: [],
  };
  async function run(fault: Fault) {
    const cannot = fault.notHere?.();
    if (cannot) {
      console.log(`${fault.name}: NOT RUN (${cannot})`);
      table.push({ ...notRun, fault: fault.name, pages: `NOT RUN: ${cannot}`, problems: [] });
      return;
    }
    target = fault.target?.() ?? cluster;
    const restartsBefore = target.processes.reduce((sum, one) => sum + one.restarts, 0);
    const [mailsBefore, eventsBefore] = [received.length, events.length];
    const outboxBefore = Number(
      (await target.db.selectFrom('email_outbox').select(db.fn.countAll().as('n')).executeTakeFirst())!.n,
    );
    const hooksBefore = Number(
      (await target.db.selectFrom('webhook_deliveries').select(db.fn.countAll().as('n')).executeTakeFirst())!.n,
    );
    const firstAnswer = answers.length;
    currentFirst = firstAnswer;
    const stop = traffic();
    await topology.sleep(1_000);
    const began = Date.now();
    await fault.begin();
    await topology.sleep(fault.durationMs);
    const checked = await fault.check?.();
    await fault.end();
    const ended = Date.now();
    // Recovery: from the fault's end to the first write taken after it (and every process answering again).
    let recoveredAt = Infinity;
    while (Date.now() - ended < 30_000) {
      const lastWrite = answers.slice(firstAnswer).findLast((answer) => answer.kind === 'post' && answer.at >= ended);
      if (lastWrite?.status === 202) {
        recoveredAt = lastWrite.at + lastWrite.ms;
        break;
      }
      await topology.sleep(50);
    }
    for (const one of target.processes) {
      const path = one.name.startsWith('api') ? '/api/health' : '/healthz';
      await topology.waitFor(`http://127.0.0.1:${one.port}${path}`, one.name, 30_000).catch(() => {});
    }
    // The releases read again by both site servers after the fault's end (their health says when they last did).
    // From the fault's end when PostgreSQL was away until then; from its start when it ended connections at once.
    const lostAt = fault.releasesReconnect === 'from its start' ? began : ended;
    let followedMs = 0;
    for (const site of target.sites) {
      let heardAt = -Infinity;
      while (heardAt < lostAt && Date.now() - ended < 30_000) {
        const asked = Date.now();
        const health = (await (await fetch(`http://127.0.0.1:${site.port}/healthz`)).json()) as {
          lastHeardMs?: number;
        };
        heardAt = health.lastHeardMs === undefined ? -Infinity : asked - health.lastHeardMs;
        if (heardAt < lostAt) await topology.sleep(100);
      }
      followedMs = Math.max(followedMs, heardAt < lostAt ? Infinity : heardAt - lostAt);
    }
    await topology.sleep(2_000);
    await stop();
    const catchUpMs = await caughtUp(fault.catchUpBoundMs + 5_000);

    const mine = answers.slice(firstAnswer);
    const during = mine.filter((answer) => answer.at >= began && answer.at < ended);
    const after = mine.filter((answer) => answer.at >= ended);
    const acknowledged = mine.filter((answer) => answer.kind === 'post' && answer.status === 202).map((a) => a.email!);
    const stored = new Set(
      (
        await target.db
          .selectFrom('deletion_requests')
          .select('email')
          .where('email', 'in', acknowledged.length ? acknowledged : [''])
          .execute()
      ).map((row) => row.email),
    );
    const lost = acknowledged.filter((email) => !stored.has(email));
    const outboxNow = Number(
      (await target.db.selectFrom('email_outbox').select(db.fn.countAll().as('n')).executeTakeFirst())!.n,
    );
    const hooksNow = Number(
      (await target.db.selectFrom('webhook_deliveries').select(db.fn.countAll().as('n')).executeTakeFirst())!.n,
    );
    const mails = received.slice(mailsBefore);
    const distinctMails = new Set(mails.map((mail) => mail.messageId)).size;
    const hooks = events.slice(eventsBefore);
    const distinctHooks = new Set(hooks).size;
    const mailDuplicates = mails.length - distinctMails;
    const hookDuplicates = hooks.length - distinctHooks;
    const restarts = target.processes.reduce((sum, one) => sum + one.restarts, 0) - restartsBefore;
    const slowest = Math.max(0, ...during.filter((answer) => answer.kind === 'post').map((answer) => answer.ms));
    const recoveryMs = recoveredAt === Infinity ? Infinity : Math.max(0, recoveredAt - ended);

    const problems: string[] = checked ? [checked] : [];
    const afterwards = await fault.after?.();
    if (afterwards?.problem) problems.push(afterwards.problem);
    const pagesDuring = during.filter((answer) => answer.kind === 'page');
    // Pages answer throughout where another process can answer them; a single process's once it is back.
    const pagesFrom = fault.pagesMustAnswer ? began : recoveredAt;
    if (mine.some((answer) => answer.kind === 'page' && answer.at >= pagesFrom && answer.status !== 200))
      problems.push(
        fault.pagesMustAnswer ? 'a page was not 200 during or after the fault' : 'a page failed after recovery',
      );
    const allowed: Answer['status'][] = [202, 503, ...(fault.alsoAllowed ? [fault.alsoAllowed.status] : [])];
    const badWrite = during.find((answer) => answer.kind === 'post' && !allowed.includes(answer.status));
    if (badWrite) problems.push(`a write was answered ${badWrite.status}`);
    if (slowest > fault.writeBoundMs) problems.push(`a write took ${slowest} ms (bound ${fault.writeBoundMs})`);
    if (lost.length) problems.push(`${lost.length} acknowledged requests lost`);
    if (recoveryMs > 5_000) problems.push(`recovery took ${recoveryMs} ms`);
    if (fault.releasesReconnect && followedMs > 5_000)
      problems.push(`the releases were read again after ${followedMs} ms`);
    if (catchUpMs > fault.catchUpBoundMs)
      problems.push(`mail caught up in ${catchUpMs} ms (bound ${fault.catchUpBoundMs})`);
    if (distinctMails !== outboxNow - outboxBefore) problems.push('mails delivered differ from mails queued');
    if (distinctHooks !== hooksNow - hooksBefore) problems.push('webhook events delivered differ from queued');
    if ((mailDuplicates || hookDuplicates) && !fault.duplicatesAllowed) problems.push('something was sent twice');
    if (forged.length) problems.push('a webhook event failed its signature');
    if (restarts && fault.name.includes('PostgreSQL')) problems.push(`${restarts} processes died of it`);
    table.push({
      fault: fault.name,
      pages: `${statusesOf(pagesDuring)} / after ${statusesOf(after.filter((a) => a.kind === 'page'))}`,
      posts:
        `${statusesOf(during.filter((a) => a.kind === 'post'))} / after ${statusesOf(after.filter((a) => a.kind === 'post'))}` +
        (fault.alsoAllowed && during.some((a) => a.kind === 'post' && a.status === fault.alsoAllowed!.status)
          ? ` (${fault.alsoAllowed.status}: ${fault.alsoAllowed.why})`
          : ''),
      slowestWrite: `${slowest} ms`,
      recovery:
        `${seconds(recoveryMs)}${fault.releasesReconnect ? `; releases read again ${seconds(followedMs)}` : ''}` +
        (afterwards ? `; ${afterwards.found}` : ''),
      stored: `${acknowledged.length - lost.length}/${acknowledged.length}`,
      mails: `${distinctMails}/${outboxNow - outboxBefore} (caught up in ${catchUpMs === Infinity ? 'never' : `${(catchUpMs / 1000).toFixed(1)} s`})`,
      webhooks: `${distinctHooks}/${hooksNow - hooksBefore}`,
      duplicates: `${mailDuplicates + hookDuplicates}${mailDuplicates + hookDuplicates && fault.duplicatesAllowed ? ` (${fault.duplicatesAllowed})` : ''}`,
      restarts,
      problems,
    });
    console.log(`${fault.name}: ${problems.length ? problems.join('; ') : 'held'}`);
  }

  // --- the single-process setup (`--local`: SQLite, no PostgreSQL), as `pnpm start` runs it; one on a 3 MB disk
  const localSite = async (name: string, dataDir: string): Promise<Target> => {
    const port = await topology.freePort();
    const site = supervise(
      name,
      port,
      [process.execPath, 'bin/site-server.mjs', '--local'],
      { PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', REMOTES_BASE_URL: '', REMOTE_ORIGINS: '' },
      join(root, 'site-server'),
    );
    await topology.waitFor(`http://127.0.0.1:${port}/healthz`, name, 60_000);
    const local = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
    return { url: `http://127.0.0.1:${port}`, db: local, processes: [site], sites: [] };
  };
  const sqlite = await localSite('local', mkdtempSync(join(tmpdir(), 'faults-local-')));
  const smallDisk = mkdtempSync(join(tmpdir(), 'faults-small-disk-'));
  let noSmallDisk: string | undefined;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', smallDisk], { stdio: 'pipe' });
  } catch (error) {
    noSmallDisk = `a 3 MB filesystem cannot be mounted here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  }
  const onSmallDisk = noSmallDisk ? undefined : await localSite('local-small-disk', join(smallDisk, 'data'));
  const filler = join(smallDisk, 'filler');

  /** A promote as an operator runs it, in a process group of its own (its checks start a site server and Chromium). */
  const promoteCommand = (version: string, ...more: string[]) =>
    spawn(process.execPath, ['bin/release.mjs', 'promote', 'vendor', version, ...more], {
      cwd: join(root, 'site-server'),
      env: { ...process.env, DATABASE_URL: databaseUrl, REMOTES_DIR: origin, REMOTES_BASE_URL: base },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const outputOf = (child: ChildProcess) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { text: () => text, exited };
  };
  let killedVersion = '';
  /** Whether both site servers serve `version` of vendor: how long it took them, within `boundMs`. */
  const bothServe = async (version: string, boundMs: number) => {
    const started = Date.now();
    while (Date.now() - started < boundMs) {
      const live = await Promise.all(
        sites.map(async (site) => {
          const health = (await (await fetch(`http://127.0.0.1:${site.port}/healthz`)).json()) as {
            live?: Record<string, string>;
          };
          return health.live?.vendor;
        }),
      );
      if (live.every((served) => served === version)) return Date.now() - started;
      await topology.sleep(200);
    }
    return Infinity;
  };
  let cdnVersion = '';
  /** The first answer of the fault under way. */
  let currentFirst = 0;

  const lockHolder = admin();
  const freezeFor = 8_000;
  const faults: Fault[] = [
    {
      name: 'PostgreSQL stopped (pg_ctl -m fast) 10 s',
      releasesReconnect: 'from its end',
      writeBoundMs: 2_500,
      pagesMustAnswer: true,
      catchUpBoundMs: 5_000,
      durationMs: 10_000,
      begin: () => database.stopFast(),
      end: () => database.startAgain(),
    },
    {
      name: 'PostgreSQL ends every connection (pg_terminate_backend)',
      releasesReconnect: 'from its start',
      writeBoundMs: 2_500,
      pagesMustAnswer: true,
      catchUpBoundMs: 5_000,
      durationMs: 1_000,
      async begin() {
        const client = admin();
        await client.connect();
        await client.query('select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid()');
        await client.end();
      },
      end: () => {},
    },
    {
      name: 'PostgreSQL: the requests table locked 8 s',
      writeBoundMs: 3_500,
      pagesMustAnswer: true,
      catchUpBoundMs: 5_000,
      durationMs: 8_000,
      async begin() {
        await lockHolder.connect();
        await lockHolder.query('begin');
        await lockHolder.query('lock table deletion_requests in access exclusive mode');
      },
      async end() {
        await lockHolder.query('rollback');
        await lockHolder.end();
      },
    },
    {
      name: `PostgreSQL frozen (SIGSTOP) ${freezeFor / 1000} s`,
      writeBoundMs: 7_500,
      pagesMustAnswer: true,
      catchUpBoundMs: 5_000,
      durationMs: freezeFor,
      begin: () => database.freeze(),
      end: () => database.thaw(),
    },
    {
      name: 'an API instance SIGKILLed mid-send',
      writeBoundMs: 2_500,
      pagesMustAnswer: true,
      duplicatesAllowed: 'killed between the send and its record: the same Message-ID, which mail systems drop',
      // nginx does not send a POST again once an instance had it: the client is told 502, and nothing was acknowledged.
      alsoAllowed: { status: 502, why: 'a request in flight on the killed instance' },
      catchUpBoundMs: 10_000,
      durationMs: 3_000,
      begin: () => void apis[0]!.child!.kill('SIGKILL'),
      end: () => {},
    },
    {
      name: 'a site server SIGKILLed',
      writeBoundMs: 2_500,
      pagesMustAnswer: true,
      catchUpBoundMs: 5_000,
      durationMs: 3_000,
      begin: () => void sites[0]!.child!.kill('SIGKILL'),
      end: () => {},
    },
    {
      name: 'the mail server and the webhook receiver down 10 s',
      writeBoundMs: 2_500,
      pagesMustAnswer: true,
      // A failed send is tried again 30 s later.
      catchUpBoundMs: 35_000,
      durationMs: 10_000,
      async begin() {
        await smtp.close();
        await new Promise((resolve) => webhooks.close(resolve));
        webhooks.closeAllConnections();
      },
      async end() {
        smtp = await startSmtpSink({ delayMs: 20, port: smtpPort, received });
        webhooks = await receiver();
      },
    },
    {
      name: 'the CDN answering 500 for 8 s, then down 8 s, during a promote',
      writeBoundMs: 2_500,
      pagesMustAnswer: true,
      catchUpBoundMs: 5_000,
      durationMs: 16_000,
      async begin() {
        cdnAnswers500 = true;
        cdnVersion = await publishCandidate(settings, 'vendor', { prebuilt: true });
        await promote(settings, 'vendor', cdnVersion, { force: { reason: 'fault suite: the CDN fails' } });
        setTimeout(() => {
          cdnServer.close();
          cdnServer.closeAllConnections();
        }, 8_000);
      },
      async end() {
        cdnAnswers500 = false;
        cdnServer = await cdnRelay();
      },
      async after() {
        const tookMs = await bothServe(cdnVersion, 30_000);
        return {
          found: `the new build served by both ${seconds(tookMs)} after the CDN's return`,
          problem: tookMs > 30_000 ? 'the build was not taken within 30 s of the CDN’s return' : undefined,
        };
      },
    },
    {
      name: 'pnpm promote SIGKILLed mid-checks, then run again',
      writeBoundMs: 2_500,
      pagesMustAnswer: true,
      catchUpBoundMs: 5_000,
      durationMs: 500,
      async begin() {
        killedVersion = await publishCandidate(settings, 'vendor', { prebuilt: true });
        const promoting = promoteCommand(killedVersion);
        const { text } = outputOf(promoting);
        const deadline = Date.now() + 60_000;
        while (!/Checking vendor/.test(text()) && Date.now() < deadline) await topology.sleep(50);
        process.kill(-promoting.pid!, 'SIGKILL');
      },
      end: () => {},
      async after() {
        const listing = spawn(process.execPath, ['bin/release.mjs', 'releases', 'vendor'], {
          cwd: join(root, 'site-server'),
          env: { ...process.env, DATABASE_URL: databaseUrl, REMOTES_DIR: origin, REMOTES_BASE_URL: base },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const listed = outputOf(listing);
        await listed.exited;
        const interrupted = /interrupted: its checks began/.test(listed.text());
        const started = Date.now();
        const again = promoteCommand(killedVersion, '--force', '--reason', 'fault suite: again after a kill');
        const rerun = outputOf(again);
        const code = await rerun.exited;
        const tookMs = Date.now() - started;
        const tookOver = /Took over vendor's release lock from a release that is gone/.test(rerun.text());
        const served = await bothServe(killedVersion, 10_000);
        const found = `releases says interrupted: ${interrupted ? 'yes' : 'no'}; run again: lock taken over ${tookOver ? 'at once' : 'NOT'}, live in ${seconds(tookMs)}`;
        const problem = !interrupted
          ? '`pnpm releases` did not show the interrupted release'
          : code !== 0 || !tookOver || tookMs > 30_000 || served === Infinity
            ? `the promote run again did not take over the lock at once (exit ${code}): ${rerun.text().slice(-300)}`
            : undefined;
        return { found, problem };
      },
    },
    {
      name: 'SQLite (--local): the process SIGKILLed mid-burst',
      target: () => sqlite,
      writeBoundMs: 2_500,
      pagesMustAnswer: false,
      alsoAllowed: { status: 'error', why: 'connections refused or reset while the only process is down' },
      catchUpBoundMs: 10_000,
      duplicatesAllowed: 'killed between the send and its record: the same Message-ID, which mail systems drop',
      durationMs: 3_000,
      begin: () => void sqlite.processes[0]!.child!.kill('SIGKILL'),
      end: () => {},
    },
    {
      name: 'SQLite (--local): its disk full for 6 s',
      target: () => onSmallDisk!,
      notHere: () => noSmallDisk,
      writeBoundMs: 6_000,
      pagesMustAnswer: true,
      catchUpBoundMs: 35_000,
      durationMs: 6_000,
      begin() {
        // Every block left taken, as a disk that filled up.
        const { bavail, bsize } = statfsSync(smallDisk);
        try {
          writeFileSync(filler, Buffer.alloc(Number(bavail) * Number(bsize)));
        } catch {
          // full before the last byte: as intended
        }
      },
      async check() {
        const health = (await (await fetch(`${onSmallDisk!.url}/api/health`)).json()) as { fault?: string };
        const refused = answers.slice(currentFirst).some((answer) => answer.kind === 'post' && answer.status === 503);
        if (!refused) return 'the disk never filled: no write was refused';
        return /SQLITE_FULL/.test(health.fault ?? '')
          ? undefined
          : `health did not name SQLITE_FULL: ${JSON.stringify(health)}`;
      },
      end: () => rmSync(filler, { force: true }),
    },
  ];

  try {
    for (const fault of faults) await run(fault);
  } finally {
    stopping = true;
    await topology.stopAll();
    cdnServer.close();
    await sqlite.db.destroy().catch(() => {});
    await onSmallDisk?.db.destroy().catch(() => {});
    if (!noSmallDisk) execFileSync('umount', ['-l', smallDisk], { stdio: 'ignore' });
    await smtp.close().catch(() => {});
    webhooks.close();
    await db.destroy().catch(() => {});
    postgres.stop();
  }

  const columns: [keyof Row, string][] = [
    ['fault', 'fault'],
    ['pages', 'pages during / after'],
    ['posts', 'deletion requests during / after'],
    ['slowestWrite', 'slowest write'],
    ['recovery', 'recovery'],
    ['stored', 'acknowledged stored'],
    ['mails', 'mails delivered/queued'],
    ['webhooks', 'events delivered/queued'],
    ['duplicates', 'duplicates'],
    ['restarts', 'restarts'],
  ];
  console.log(
    '\nFaults on two API instances and two site servers behind nginx, on PostgreSQL (supervised: restart 2 s)',
  );
  console.log(`| ${columns.map(([, title]) => title).join(' | ')} | verdict |`);
  console.log(`|${columns.map(() => '---').join('|')}|---|`);
  for (const row of table) {
    const cells = columns.map(([key]) => String(row[key]));
    console.log(`| ${cells.join(' | ')} | ${row.problems.length ? `FAILED: ${row.problems.join('; ')}` : 'held'} |`);
  }
  const failed = table.some((row) => row.problems.length) || table.length !== faults.length;
  if (failed) {
    for (const one of [...apis, ...sites]) console.log(`\n--- ${one.name}'s log (end)\n${one.log.slice(-3_000)}`);
    process.exit(1);
  }
}

await main();

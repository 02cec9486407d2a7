/**
 * `pnpm test:cluster`, the site servers' part: two site servers, each with its own empty data folder, behind nginx,
 * following the releases in PostgreSQL, with a second nginx as the CDN's origin for REMOTES_DIR. Releases of the
 * vendor remote with a visible copy change, page views spread over both during a release, a SIGKILL, a rollout at 25%
 * to 200 visitors, a tampered file; two API instances beside them and Prometheus scraping all four every second, asked
 * with PromQL what an operator would ask; printed as a table. Exits 1 when a check fails. Every process is stopped by its own pid when it ends.
 */
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { openMigratedDatabase, type Db } from 'api';
import {
  cdnServerBlock,
  freePort,
  frontBlock,
  sleep,
  startApi,
  startNginxWith,
  rulesForChecks,
  startPrometheus,
  startSiteServer,
  stopAll,
  waitFor,
} from 'api/cluster/topology';
import { postgresDatabaseUrl, postgresServer } from 'api/test/databases';
import { startSmtpSink } from 'api/test/smtp-sink';
import { remoteNames, remotes } from '@gift/federation';
import { chromiumArgs, chromiumPath } from '../src/releases/chromium.ts';
import { previewPath, signPreview } from '../src/ledger/preview-links.ts';
import { cdnReleaseSettings } from '../src/ledger/switches.ts';
import { promote, publishCandidate, release } from '../src/releases/release.ts';
import { stepRollout } from '../src/ledger/rollout-steps.ts';
import { testIdOf, visitorAt } from '../src/rollouts/cohorts.ts';
import { browserAgent } from '../src/watch/test-road.ts';
import { metricsChecks } from './metrics-checks.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const vendorCopy = 'Sell your gifts to people who are looking for them';
const previewSecret = 'cluster-test-preview-secret-0123456789abcdef';

type Row = { check: string; figures: string; ok: boolean };
/** The checks' rows: the site servers' 10, then metricsChecks' 10. */
const expectedRows = 21;
const table: Row[] = [];
const check = (name: string, figures: string, ok: boolean) => table.push({ check: name, figures, ok });

/** The vendor remote's build with its heading changed to `copy`, in a folder of its own, as a team's new build. */
function vendorBuildSaying(copy: string) {
  const dir = mkdtempSync(join(tmpdir(), 'vendor-build-'));
  cpSync(join(root, 'vendor', 'dist'), dir, { recursive: true });
  for (const file of ['ssr/vendor-page.js', ...readdirSync(join(dir, 'assets')).map((name) => `assets/${name}`)]) {
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    if (!text.includes(vendorCopy)) continue;
    writeFileSync(join(dir, file), text.replaceAll(vendorCopy, copy));
    writeFileSync(join(dir, `${file}.br`), brotliCompressSync(readFileSync(join(dir, file))));
  }
  return dir;
}

/** The version of each remote a page's HTML names (its manifest, its entry, its chunks): one each, or more. */
function versionsNamed(html: string, cdn: string) {
  const named = new Map<string, Set<string>>();
  for (const [, folder, version] of html.matchAll(new RegExp(`${cdn}/remotes/([\\w-]+)/([\\w.-]+)/`, 'g'))) {
    named.set(folder!, (named.get(folder!) ?? new Set()).add(version!));
  }
  return named;
}

/**
 * Asks a server's /healthz (once it listens) until `until(status, body)` holds, within `timeoutMs`: resolves with its
 * reason (`manifest`), or its status when it gives none.
 */
async function healthWhile(port: number, until: (status: number, body: string) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let said = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      const body = await response.text();
      said = (JSON.parse(body) as { manifest?: string }).manifest ?? String(response.status);
      if (until(response.status, body)) return said;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`/healthz on ${port} did not say what was awaited within ${timeoutMs} ms (last: ${said})`);
}

async function main() {
  const postgres = await postgresServer();
  if (!postgres) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const databaseUrl = await postgresDatabaseUrl(postgres.url);
  const origin = mkdtempSync(join(tmpdir(), 'cdn-origin-'));
  const cdn = await startNginxWith((port) => cdnServerBlock(port, origin), '/ready');
  const base = `${cdn}/remotes/`;
  const unchecked = (reason: string) => ({ force: { reason: `cluster test: ${reason}` } });
  const servers: { port: number; dataDir: string; child?: ChildProcess; log: string }[] = [];
  const onStop: (() => Promise<void>)[] = [];
  // Their mail (and the API instances') to a slow mail server: 400 ms a message, so that the outbox is seen waiting.
  const smtp = await startSmtpSink({ delayMs: 400 });
  onStop.push(() => smtp.close());
  /** A site server as its systemd unit starts it, on its own data folder, following PostgreSQL. */
  const launch = (server: (typeof servers)[number]) =>
    (server.child = startSiteServer(
      server.port,
      {
        LOG_LEVEL: 'info',
        DATA_DIR: server.dataDir,
        DATABASE_URL: databaseUrl,
        REMOTES_BASE_URL: base,
        REMOTE_ORIGINS: cdn,
        RELEASE_WATCH_MINUTES: '0',
        PREVIEW_SECRET: previewSecret,
        TRUST_PROXY: '1',
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      },
      (text) => (server.log += text),
    ));
  /** Starts a site server; resolves with the time until its /healthz says 200. */
  const startServer = async (server: (typeof servers)[number]) => {
    const started = Date.now();
    launch(server);
    await waitFor(`http://127.0.0.1:${server.port}/healthz`, `The site server on ${server.port}`, 60_000);
    return Date.now() - started;
  };
  for (let i = 0; i < 2; i++) {
    servers.push({ port: await freePort(), dataDir: mkdtempSync(join(tmpdir(), `site-${i}-`)), log: '' });
  }

  let db: Db | undefined;
  try {
    // --- a site server started first, on a database nothing has migrated: it listens at once, says why it is not
    // ready, migrates, and serves the first deploy once it is released
    const first = servers[0]!;
    const firstBegan = Date.now();
    launch(first);
    const saying = await healthWhile(first.port, (status) => status === 503, 60_000);
    const listenMs = Date.now() - firstBegan;
    db = await openMigratedDatabase({ databaseUrl, dataDir: '' });
    const settings = cdnReleaseSettings(root, db, origin, base);
    const nothingLive = await healthWhile(first.port, (status, body) => /no release is live/.test(body), 30_000);
    // A page before any release: not an empty page a cache could keep, but "ask again shortly".
    const early = await fetch(`http://127.0.0.1:${first.port}/vendor`);
    await early.arrayBuffer();
    const earlyHeaders = ['retry-after', 'cache-control'].map((name) => `${name}: ${early.headers.get(name)}`);
    check(
      'a page before any release',
      `GET /vendor ${early.status}, ${earlyHeaders.join(', ')}`,
      early.status === 503 && early.headers.get('cache-control') === 'no-store' && early.headers.has('retry-after'),
    );
    const deployedAt = Date.now();
    for (const remote of remoteNames) await release(settings, remote, { prebuilt: true, ...unchecked('first deploy') });
    await waitFor(`http://127.0.0.1:${first.port}/healthz`, 'The first site server', 30_000);
    const schemaLines = first.log.split('\n').filter((line) => /reading the releases|site_releases/.test(line));
    check(
      'a site server started first on an empty database',
      `listened in ${listenMs} ms: /healthz 503 "${saying}", then "${nothingLive}"; 200 ${Date.now() - deployedAt} ms after the first deploy began; its log about the schema: ${schemaLines.length} lines`,
      /not been read yet|waiting for the database schema|no release is live/.test(saying) &&
        /no release is live/.test(nothingLive) &&
        schemaLines.length <= 2,
    );
    const startMs = [Date.now() - firstBegan, await startServer(servers[1]!)];
    const health = async (server: (typeof servers)[number]) =>
      (await (await fetch(`http://127.0.0.1:${server.port}/healthz`)).json()) as {
        status: string;
        live: Record<string, string>;
        lastHeardMs?: number;
        behind?: Record<string, string>;
      };
    const live = await Promise.all(servers.map(health));
    check(
      'two site servers start on empty data folders',
      `ready in ${startMs.join(' and ')} ms, serving ${Object.keys(live[0]!.live).length} and ${Object.keys(live[1]!.live).length} remotes`,
      live.every((state) => remoteNames.every((remote) => state.live[remotes[remote].folder])),
    );

    // --- two API instances beside them on the same PostgreSQL, and Prometheus scraping the four every second
    const apiPorts = [await freePort(), await freePort()];
    const apis = await Promise.all(
      apiPorts.map((port) =>
        startApi(port, {
          DATABASE_URL: databaseUrl,
          SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
          TRUST_PROXY: '1',
          RATE_LIMIT_PER_IP: '1000',
          INSTANCE_NAME: `api-${port}`,
        }),
      ),
    );
    const prometheus = await startPrometheus(
      {
        site: servers.map((server) => `127.0.0.1:${server.port}`),
        api: apiPorts.map((port) => `127.0.0.1:${port}`),
      },
      rulesForChecks(),
    );

    const site = await startNginxWith(
      (port) =>
        frontBlock(
          port,
          servers.map((server) => server.port),
          apiPorts,
        ),
      '/healthz',
    );

    // --- a release with a visible copy change, seen by both servers
    /** The vendor page's heading as a server renders it now. */
    const heading = async (port: number) =>
      (await (await fetch(`http://127.0.0.1:${port}/vendor`)).text()).match(/<h1 id="vendor-title">([^<]*)</)?.[1];
    const v2 = await publishCandidate(settings, 'vendor', { from: vendorBuildSaying('Your shop in every gift list') });
    const began = Date.now();
    await promote(settings, 'vendor', v2, unchecked('copy change'));
    const seenAt = await Promise.all(
      servers.map(async (server) => {
        while (Date.now() - began < 10_000) {
          if (
            (await health(server)).live.vendor === v2 &&
            (await heading(server.port)) === 'Your shop in every gift list'
          )
            return Date.now() - began;
          await sleep(10);
        }
        return Infinity;
      }),
    );
    const seenMs = Math.max(...seenAt);
    console.log(`site servers: 2, release seen by both in ${seenMs} ms`);
    check('a release with a copy change, seen by both', `by each in ${seenAt.join(' and ')} ms`, seenMs <= 5_000);

    // --- a browser composes the page through nginx with the remote's code from the CDN, one version of it
    const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    try {
      const tab = await browser.newPage();
      const errors: string[] = [];
      tab.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
      tab.on('pageerror', (error) => errors.push(error.message));
      const fromCdn = new Set<string>();
      tab.on('requestfinished', (request) => request.url().startsWith(cdn) && fromCdn.add(request.url()));
      await tab.goto(`${site}/vendor`);
      await tab.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, {
        timeout: 30_000,
      });
      const shown = await tab.locator('h1').first().textContent();
      const vendorFiles = [...fromCdn].filter((url) => url.startsWith(`${base}vendor/`));
      const versions = new Set(vendorFiles.map((url) => url.slice(`${base}vendor/`.length).split('/')[0]));
      check(
        'a browser composes /vendor from the CDN',
        `hydrated, heading "${shown}", ${vendorFiles.length} vendor files from the CDN, all of ${[...versions].join(', ') === v2 ? 'the new version' : [...versions].join(', ')}; console errors: ${errors.length} ${errors.slice(0, 3).join(' | ').slice(0, 600)}`,
        shown === 'Your shop in every gift list' &&
          vendorFiles.length > 0 &&
          versions.size === 1 &&
          versions.has(v2) &&
          errors.length === 0,
      );
    } finally {
      await browser.close();
    }

    // --- a candidate previewed through a signed link: each server fetches its build when the link first reaches it
    const candidate = await publishCandidate(settings, 'vendor', {
      from: vendorBuildSaying('A candidate for vendors'),
    });
    const token = signPreview({ remote: 'vendor', version: candidate, expires: Date.now() + 3_600_000 }, previewSecret);
    const previewed = await Promise.all(
      servers.map(async (server) => {
        const link = await fetch(`http://127.0.0.1:${server.port}${previewPath}?token=${token}`, {
          redirect: 'manual',
        });
        const cookie = link.headers.get('set-cookie')?.split(';')[0] ?? '';
        const page = await fetch(`http://127.0.0.1:${server.port}/vendor`, { headers: { cookie } });
        return (await page.text()).match(/<h1 id="vendor-title">([^<]*)</)?.[1];
      }),
    );
    const liveMeanwhile = await Promise.all(servers.map((server) => heading(server.port)));
    check(
      'a candidate previewed on both servers',
      `with the link's cookie: "${previewed.join('" and "')}"; without: "${liveMeanwhile.join('" and "')}"`,
      previewed.every((copy) => copy === 'A candidate for vendors') &&
        liveMeanwhile.every((copy) => copy === 'Your shop in every gift list'),
    );

    // --- 200 page views over both servers while two releases go live and one server is killed
    const v3 = await publishCandidate(settings, 'vendor', { from: vendorBuildSaying('Third copy for vendors') });
    const v4 = await publishCandidate(settings, 'vendor', { from: vendorBuildSaying('Fourth copy for vendors') });
    const paths = ['/vendor', '/vendor', '/', '/business', '/privacy'];
    const views: { status: number; server: string; html: string }[] = [];
    // Releases and the kill happen at set views, not set times, so that a slow host changes nothing of the plan.
    const killed = servers[0]!;
    const killedAfter = 120;
    const during: Promise<unknown>[] = [];
    const viewing = (async () => {
      for (let i = 0; i < 200; i++) {
        if (i === 50) during.push(promote(settings, 'vendor', v3, unchecked('during the views')));
        if (i === killedAfter) killed.child!.kill('SIGKILL');
        if (i === 130) during.push(promote(settings, 'vendor', v4, unchecked('while a server is down')));
        const response = await fetch(`${site}${paths[i % paths.length]}`);
        views.push({
          status: response.status,
          server: response.headers.get('x-site-server') ?? '?',
          html: await response.text(),
        });
        await sleep(20);
      }
    })();
    await viewing;
    await Promise.all(during);

    const vendorVersions = new Set<string>();
    const chunks = new Set<string>();
    let mixed = 0;
    for (const view of views) {
      const named = versionsNamed(view.html, cdn);
      if ([...named.values()].some((versions) => versions.size !== 1) || named.size !== remoteNames.length) mixed++;
      for (const version of named.get('vendor') ?? []) vendorVersions.add(version);
      const preload = view.html.match(/data-preload="([^"]+)"/)?.[1] ?? '';
      for (const url of preload.split(' ')) if (url.startsWith(cdn)) chunks.add(url);
    }
    const missing = (
      await Promise.all([...chunks].map(async (url) => ((await fetch(url)).ok ? undefined : url)))
    ).filter(Boolean);
    // nginx names every server it tried: the last one answered.
    const answeredBy = (view: (typeof views)[number]) => view.server.split(', ').at(-1)!;
    const counts = servers.map((server) => views.filter((view) => answeredBy(view).endsWith(`:${server.port}`)).length);
    const passedOver = views.filter((view) => view.server.includes(', ')).length;
    check(
      '200 views over both during releases and a kill',
      `200s: ${views.filter((view) => view.status === 200).length}; answered by each: ${counts.join(' and ')} (killed after view ${killedAfter}, ${passedOver} passed to the other); pages naming two builds of a remote: ${mixed}; vendor versions seen: ${vendorVersions.size}; chunks missing on the CDN: ${missing.length} of ${chunks.size}`,
      views.every((view) => view.status === 200) &&
        mixed === 0 &&
        missing.length === 0 &&
        vendorVersions.size === 3 &&
        counts.every((count) => count > 20),
    );

    // --- the killed server comes back on its own data folder and catches up with the release it missed
    const restartMs = await startServer(killed);
    const caughtUp = await health(killed);
    check(
      'SIGKILL, restart: the killed server catches up',
      `back in ${restartMs} ms, serving vendor ${caughtUp.live.vendor === v4 ? 'v4 (released while it was down)' : caughtUp.live.vendor}: "${await heading(killed.port)}"`,
      caughtUp.live.vendor === v4 && (await heading(killed.port)) === 'Fourth copy for vendors',
    );

    // --- a rollout at 25%: 200 new visitors, each given its id and its arm on its first page by whichever server it
    // reached first, then asked of both
    const v6 = await publishCandidate(settings, 'vendor', { from: vendorBuildSaying('Sixth copy for vendors') });
    await promote(settings, 'vendor', v6, {
      ...unchecked('a rollout'),
      rollout: { stages: [25, 100], stageMinutes: 60 },
    });
    /** A page as a browser asks for it (a script's own user agent is a crawler's, kept on the current versions). */
    const browserFetch = (url: string, cookie?: string) =>
      fetch(url, { headers: { 'user-agent': browserAgent, ...(cookie && { cookie }) } });
    const copyFor = async (port: number, cookie: string) =>
      (await (await browserFetch(`http://127.0.0.1:${port}/vendor`, cookie)).text()).match(
        /<h1 id="vendor-title">([^<]*)</,
      )?.[1];
    /** The cookie of a visitor at `place` (0-99) in the vendor test under way. */
    const placedAt = async (place: number) =>
      `cohort=${visitorAt(testIdOf((await settings.ledger!.rollouts()).vendor!), place)}`;
    const inCanary = await placedAt(0);
    const splitAt = Date.now();
    while (
      Date.now() - splitAt < 10_000 &&
      !(await Promise.all(servers.map((server) => copyFor(server.port, inCanary)))).every(
        (copy) => copy === 'Sixth copy for vendors',
      )
    )
      await sleep(20);
    const splitMs = Date.now() - splitAt;
    const visitors: { cookie: string; canary: boolean; mixed: boolean; server: string }[] = [];
    for (let i = 0; i < 200; i++) {
      // A first request has no cookie: it is given an id, and served its arm at once.
      const first = await browserFetch(`${site}/vendor`);
      const firstCanary =
        versionsNamed(await first.text(), cdn)
          .get('vendor')
          ?.has(v6) ?? false;
      const cookie = (first.headers.getSetCookie().find((line) => line.startsWith('cohort=')) ?? '').split(';')[0]!;
      // Its next page from either server in turn (through nginx, a visitor's two requests would alternate the same way).
      const server = servers[i % servers.length]!;
      const response = await browserFetch(`http://127.0.0.1:${server.port}/vendor`, cookie);
      const html = await response.text();
      const named = versionsNamed(html, cdn);
      const canary = named.get('vendor')?.has(v6) ?? false;
      visitors.push({
        cookie,
        canary,
        mixed: [...named.values()].some((versions) => versions.size !== 1) || canary !== firstCanary,
        server: `:${server.port}`,
      });
    }
    const share = (visitors.filter((visitor) => visitor.canary).length / visitors.length) * 100;
    const distinct = new Set(visitors.map((visitor) => visitor.cookie)).size;
    const spread = servers.map(
      (server) => visitors.filter((visitor) => visitor.server.endsWith(`:${server.port}`)).length,
    );
    // The same cookie, asked of each server directly: the same version from both.
    const sameOnBoth = (
      await Promise.all(
        visitors.slice(0, 40).map(async (visitor) => {
          const copies = await Promise.all(servers.map((server) => copyFor(server.port, visitor.cookie)));
          return copies[0] === copies[1] && (copies[0] === 'Sixth copy for vendors') === visitor.canary;
        }),
      )
    ).every(Boolean);
    const splitMixed = visitors.filter((visitor) => visitor.mixed).length;
    console.log(
      `rollout: 25% stage, canary share ${share.toFixed(1)}%, same cohort on both servers: ${sameOnBoth ? 'yes' : 'no'}`,
    );
    check(
      'a rollout at 25% over both servers',
      `split on both within ${splitMs} ms; 200 new visitors (${distinct} distinct ids), their first page its arm's, their next from each server: ${spread.join(' and ')}: canary share ${share.toFixed(1)}%; same version from both servers for the same cookie: ${sameOnBoth ? 'yes' : 'no'}; pages naming two builds or another arm: ${splitMixed}`,
      share >= 15 &&
        share <= 35 &&
        distinct === 200 &&
        sameOnBoth &&
        splitMixed === 0 &&
        spread.every((count) => count > 20),
    );
    await stepRollout(settings, 'vendor', 'abort', { why: 'the cluster test is done with it' });

    // --- an experiment at 50% (a rollout marked as one, kept in PostgreSQL): both servers split by the same cookie,
    // never advanced; stopped, both serve the current version again
    const currentCopy = await copyFor(servers[0]!.port, 'cohort=none');
    await promote(settings, 'vendor', v6, {
      ...unchecked('an experiment'),
      rollout: { stages: [50, 100], stageMinutes: 14 * 24 * 60, experiment: { goal: 'portal-click', days: 14 } },
    });
    const [newArm, currentArm] = [await placedAt(10), await placedAt(70)];
    const arms = async () =>
      (
        await Promise.all(servers.flatMap((server) => [copyFor(server.port, newArm), copyFor(server.port, currentArm)]))
      ).join(' | ');
    const bothArms = [1, 2].map(() => `Sixth copy for vendors | ${currentCopy}`).join(' | ');
    const experimentAt = Date.now();
    while (Date.now() - experimentAt < 10_000 && (await arms()) !== bothArms) await sleep(20);
    const experimentMs = Date.now() - experimentAt;
    const split = await arms();
    const stored = (await settings.ledger!.rollouts()).vendor;
    await stepRollout(settings, 'vendor', 'abort', { why: 'experiment stopped: the cluster test is done with it' });
    const backAt = Date.now();
    const allCurrent = [1, 2, 3, 4].map(() => currentCopy).join(' | ');
    while (Date.now() - backAt < 10_000 && (await arms()) !== allCurrent) await sleep(20);
    const backMs = Date.now() - backAt;
    check(
      'an experiment at 50% over both servers',
      `both servers split within ${experimentMs} ms (a visitor at place 10 and one at 70, each server: ${split}); kept in ` +
        `PostgreSQL as ${JSON.stringify(stored?.experiment)}; stopped: both serve "${currentCopy}" to both within ${backMs} ms`,
      split === bothArms && stored?.experiment?.goal === 'portal-click' && (await arms()) === allCurrent,
    );

    // --- a file of a released version tampered with on the CDN's origin: refused, the version before keeps serving
    const v5Dir = vendorBuildSaying('Fifth copy for vendors');
    const v5 = await publishCandidate(settings, 'vendor', { from: v5Dir });
    writeFileSync(join(origin, 'vendor', v5, 'ssr', 'vendor-page.js'), 'export default () => "not what was released";');
    await promote(settings, 'vendor', v5, unchecked('tampered on the CDN'));
    const refusedAt = Date.now();
    while (Date.now() - refusedAt < 10_000 && !(await Promise.all(servers.map(health))).every((state) => state.behind))
      await sleep(20);
    const after = await Promise.all(servers.map(health));
    const named = servers.every((server) => /refused vendor \S+: ssr\/vendor-page\.js: its SHA-256/.test(server.log));
    const stillServing = await Promise.all(servers.map(async (server) => heading(server.port)));
    check(
      'a tampered file on the CDN is refused',
      `serving vendor ${after.map((state) => (state.live.vendor === v4 ? 'v4' : state.live.vendor)).join(' and ')}; health ${after.map((state) => state.status).join(', ')}; the log names the file: ${named ? 'yes' : 'no'}`,
      after.every((state) => state.live.vendor === v4 && state.status === 'degraded') &&
        named &&
        stillServing.every((copy) => copy === 'Fourth copy for vendors'),
    );

    await metricsChecks(check, { prometheus, servers, apis, apiPorts, site, settings, smtp, root, postgres });
  } finally {
    for (const stop of onStop) await stop();
    await stopAll();
    await db?.destroy();
    postgres.stop();
  }

  console.log('\nTwo site servers behind nginx, following the releases in PostgreSQL, builds from a CDN origin');
  console.log(`| ${'check'.padEnd(48)} | ${'figures'.padEnd(150)} |    |`);
  console.log(`| ${'-'.repeat(48)} | ${'-'.repeat(150)} | -- |`);
  for (const row of table)
    console.log(`| ${row.check.padEnd(48)} | ${row.figures.padEnd(150)} | ${row.ok ? 'ok' : 'NO'} |`);
  // Every check made its row (one that threw before its row would leave the table short), and each is ok.
  if (table.length !== expectedRows || table.some((row) => !row.ok)) {
    if (table.length !== expectedRows) console.log(`${table.length} rows where ${expectedRows} checks should have run`);
    process.exit(1);
  }
}

await main();

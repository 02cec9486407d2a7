import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { printable } from 'api/commands';
import { examplePath, pageRoutes, routesOf, type PageRoute } from '@gift/content';
import { remotes, type RemoteName, type RemotesManifest } from '@gift/federation';
import { chromiumArgs, chromiumPath } from './chromium.ts';
import { defaultRemotesBaseUrl, versionDir, versionEntryUrl } from '../ledger/versions.ts';
import { createPageRenderer, sharedModuleConflicts, sharedModulesOf, startSite } from '../site.ts';

/** What the checks need to know of a deployment: the release settings' folders. */
export interface Deployment {
  root: string;
  remotesDir: string;
  remotesBaseUrl?: string;
}

export interface CheckSubject {
  remote: RemoteName;
  /** The candidate. */
  version: string;
  /** The manifest as it is live now. */
  live: RemotesManifest;
  /** The live version of the remote, when it is one published under REMOTES_DIR: the weight is compared with it. */
  liveVersion?: string;
  allowHeavier?: boolean;
}

/** One check's outcome: `where` names the route and viewport of a failure. */
export interface CheckResult {
  check: string;
  ok: boolean;
  detail: string;
}

/**
 * What a caller that checks many candidates may lend the checks (the release journeys, one of each per worker): a
 * browser, and a site server already serving the live versions (for the live build's weight). The caller closes them.
 */
export interface CheckResources {
  browser?: Browser;
  liveSite?: { url: string };
}

export interface CheckReport {
  passed: boolean;
  results: CheckResult[];
  /** The first failure, as a refusal states it. */
  failure?: string;
  seconds: number;
}

export const viewports = [
  { name: '375 px', width: 375, height: 812 },
  { name: '1280 px', width: 1280, height: 800 },
] as const;
export const serverRenderTimeoutMs = 10_000;
/** The most a page of the candidate may move by itself while it loads (CLS; Google's "good" is at most 0.1). */
export const maxLayoutShift = 0.1;

/** Sums, in the page, the layout shifts that no input caused (what CLS counts in a page's first seconds). */
function recordLayoutShifts() {
  const page = window as unknown as { layoutShift: number };
  page.layoutShift = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
      if (!entry.hadRecentInput) page.layoutShift += entry.value;
    }
  }).observe({ type: 'layout-shift', buffered: true });
}
/** How much heavier a candidate's JavaScript may be than the live build's without `--allow-heavier`. */
export const weightAllowance = 0.1;

const firstLine = (text: string) => text.split('\n')[0]!.trim().slice(0, 300);

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * The live manifest as a temporary server on this machine serves it: entries published at the deployment's base URL
 * (a CDN) are served from REMOTES_DIR by the temporary server itself, so the checks need nothing but this machine.
 */
function servedHere(manifest: RemotesManifest, deployment: Deployment): RemotesManifest {
  const base = deployment.remotesBaseUrl ?? defaultRemotesBaseUrl;
  return Object.fromEntries(
    Object.entries(manifest).map(([remote, entry]) => [
      remote,
      entry.startsWith(base) ? `${defaultRemotesBaseUrl}${entry.slice(base.length)}` : entry,
    ]),
  );
}

/** Origins of entries that stay elsewhere, which the temporary server's CSP must allow. */
const foreignOrigins = (manifest: RemotesManifest) => [
  ...new Set(
    Object.values(manifest)
      .filter((entry) => /^https?:\/\//.test(entry))
      .map((entry) => new URL(entry).origin),
  ),
];

/** Options of a site server of its own composing pages with `manifest` (written to `folder`); the live site is never touched. */
function temporarySiteOptions(deployment: Deployment, manifest: RemotesManifest, folder: string, name: string) {
  const manifestFile = join(folder, `${name}.json`);
  writeFileSync(manifestFile, JSON.stringify(manifest));
  return {
    root: deployment.root,
    remotesDir: deployment.remotesDir,
    manifestFile,
    remoteOrigins: foreignOrigins(manifest),
  };
}

/** A temporary site server in this process, on a free port. */
const temporarySite = (...args: Parameters<typeof temporarySiteOptions>) => startSite(temporarySiteOptions(...args));

/**
 * A temporary site server in a process of its own (live-site-process.ts), which has never loaded the candidate's
 * code: the candidate's server build runs in this process and could have changed what any page renders here.
 */
async function temporarySiteInOwnProcess(...args: Parameters<typeof temporarySiteOptions>) {
  const child = fork(
    fileURLToPath(new URL('./live-site-process.ts', import.meta.url)),
    [JSON.stringify(temporarySiteOptions(...args))],
    {
      // TypeScript as this process runs it (tsx), whatever the folder it was started from.
      execArgv: ['--import', import.meta.resolve('tsx')],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.connected) child.disconnect();
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.once('message', (message) => resolve(String(message)));
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the live site's process exited with ${code}`)));
    }),
    30_000,
    "Starting the live site's process",
  ).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return { url, close };
}

/**
 * How many pixels wider than the screen a page is at its widest: after hydration, and after scrolling through it a
 * half screen at a time so that every part that comes into view runs its entrance, and back.
 */
async function sidewaysOverflow(page: Page): Promise<number> {
  const over = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  const first = await over();
  await page.evaluate(async () => {
    for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight / 2) {
      window.scrollTo({ top: y, behavior: 'instant' });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  await page.waitForTimeout(800);
  const after = await over();
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  return Math.max(first, after);
}

/**
 * A page as a visitor's browser gets it: what went wrong first, and the scripts it loaded until it was idle (before
 * any scroll: what every visit of the page costs, the same for the live build's visit as for the candidate's). The
 * routes in `owned` (the released remote's) are also checked for layout shift and sideways scroll.
 */
async function visit(
  browser: Browser,
  site: string,
  paths: string[],
  viewport: (typeof viewports)[number],
  owned: string[] = paths,
) {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  await context.addInitScript(recordLayoutShifts);
  const scripts = new Set<string>();
  let layoutShift = 0;
  try {
    for (const path of paths) {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`page error: ${firstLine(error.message)}`));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`console error: ${firstLine(message.text())}`);
      });
      let counting = true;
      page.on('request', (request) => {
        if (counting && request.resourceType() === 'script') scripts.add(new URL(request.url()).pathname);
      });
      const failure = await (async () => {
        try {
          const response = await page.goto(`${site}${path}`, { waitUntil: 'load', timeout: 20_000 });
          if (response?.status() !== 200) return `answered ${response?.status() ?? 'nothing'}`;
          // The shell has started: hydrated, or rendered afresh in the browser (`true`, the signal the end-to-end tests
          // wait for), or kept the server's page because the page's remote did not load (`kept`, with its error).
          await page.waitForFunction(() => document.documentElement.dataset.ready !== undefined, undefined, {
            timeout: 20_000,
          });
          const ready = await page.evaluate(() => document.documentElement.dataset.ready);
          await page.locator('main h1').first().waitFor({ timeout: 10_000 });
          // Errors that come once the page runs (a late chunk, an effect) count as much as those at load.
          await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
          counting = false;
          if (errors.length) return errors[0];
          if (ready !== 'true') return "its remote did not load: the server's page was kept, not hydrated";
          if (await page.locator('[data-remote-unavailable]').count()) {
            return 'shows "This part of the site is unavailable"';
          }
          const headings = await page.locator('h1').count();
          if (headings !== 1) return `has ${headings} h1 elements, not one`;
          if (!(await page.locator('h1').isVisible())) return 'its h1 is not visible';
          if (owned.includes(path)) {
            // Measured before the scroll below, which loads and reveals parts as a visitor's scroll would.
            const shift = await page.evaluate(() => (window as unknown as { layoutShift: number }).layoutShift);
            layoutShift = Math.max(layoutShift, shift);
            if (shift > maxLayoutShift) {
              return `moves by itself while it loads: layout shift ${shift.toFixed(3)} (at most ${maxLayoutShift})`;
            }
            const over = await sidewaysOverflow(page);
            if (over > 0) return `scrolls sideways: the page is ${over} px wider than the screen`;
          }
          return undefined;
        } catch (error) {
          return errors[0] ?? firstLine((error as Error).message);
        }
      })();
      await page.close();
      if (failure) return { failure: `${path}: ${failure}`, failedPath: path, scripts, layoutShift };
    }
    return { scripts, layoutShift };
  } finally {
    await context.close();
  }
}

/** Brotli bytes of a remote version's scripts among `paths` (as served: its `.br` copy, or compressed now). */
function brotliBytes(deployment: Deployment, remote: RemoteName, version: string, paths: Set<string>) {
  const prefix = `${defaultRemotesBaseUrl}${remotes[remote].folder}/${version}/`;
  let bytes = 0;
  for (const path of paths) {
    if (!path.startsWith(prefix)) continue;
    const file = join(versionDir(deployment.remotesDir, remote, version), path.slice(prefix.length));
    if (!existsSync(file) || !statSync(file).isFile()) continue;
    bytes += existsSync(`${file}.br`)
      ? statSync(`${file}.br`).size
      : brotliCompressSync(readFileSync(file), { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length;
  }
  return bytes;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A route of another remote that is live, to show that the shell still composes the rest of the site. */
function controlRoute(remote: RemoteName, live: RemotesManifest): PageRoute | undefined {
  return pageRoutes.find((route) => route.remote !== remote && route.prerender && live[route.remote]);
}

/**
 * The checks a candidate passes before it goes live: its shared modules against the shell's, a server render of
 * each route it owns, each route in Chromium at 375 and 1280 px on a temporary site server that serves the candidate
 * in place of the live build (plus one route of another remote), and its JavaScript's weight against the live
 * build's. Every check runs; the first failure is the refusal's reason. `log` hears each result as it comes.
 */
export async function checkCandidate(
  deployment: Deployment,
  subject: CheckSubject,
  log: (line: string) => void = () => {},
  lent: CheckResources = {},
): Promise<CheckReport> {
  const started = performance.now();
  const { remote, version } = subject;
  const results: CheckResult[] = [];
  const report = (check: string, ok: boolean, detail: string) => {
    results.push({ check, ok, detail });
    // The detail may quote a page's console: shown with its control characters and escape sequences made visible.
    log(`  ${ok ? 'ok  ' : 'FAIL'} ${check}: ${printable(detail)}`);
  };
  const folder = mkdtempSync(join(tmpdir(), 'release-checks-'));
  const routes = routesOf(remote);
  const paths = routes.map(examplePath);
  const live = servedHere(subject.live, deployment);
  const candidate = { ...live, [remote]: versionEntryUrl(remote, version) };
  const closers: (() => Promise<unknown>)[] = [];
  const finished = (): CheckReport => {
    const failed = results.find((result) => !result.ok);
    return {
      passed: !failed,
      results,
      failure: failed && `${failed.check}: ${failed.detail}`,
      seconds: (performance.now() - started) / 1000,
    };
  };

  try {
    // 1. Shared modules: what the candidate asks for, against what the shell provides.
    try {
      const shellManifest = join(deployment.root, 'shell', 'dist', 'mf-manifest.json');
      if (!existsSync(shellManifest)) {
        throw new Error(
          "the shell's build records no shared modules (shell/dist/mf-manifest.json): rebuild it with pnpm --filter shell build",
        );
      }
      const conflicts = sharedModuleConflicts(
        sharedModulesOf(shellManifest),
        sharedModulesOf(join(versionDir(deployment.remotesDir, remote, version), 'mf-manifest.json')),
      );
      report(
        'shared modules',
        conflicts.length === 0,
        conflicts.length ? conflicts.join('; ') : 'the shell provides every version the candidate asks for',
      );
    } catch (error) {
      report('shared modules', false, firstLine((error as Error).message));
    }

    // A build that cannot run on the shell's React or router is not worth rendering: refused at once.
    if (!results[0]!.ok) {
      log('  (the other checks did not run: the candidate cannot run on the shell it would join)');
      return finished();
    }

    // The live site, for the live build's weight. The control route, another team's page, is visited with the live
    // versions only when the candidate's run fails there, from a process of its own (below).
    const control = controlRoute(remote, subject.live);
    const controlPath = control && examplePath(control);
    let liveSite: { url: string } | undefined = subject.liveVersion ? lent.liveSite : undefined;
    if (subject.liveVersion && !liveSite) {
      const started = await temporarySite(deployment, live, folder, 'live');
      closers.push(started.close);
      liveSite = started;
    }
    const browser: Browser =
      lent.browser ??
      (await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs }).then((launched) => {
        closers.push(() => launched.close());
        return launched;
      }));

    // 2. Server render of every route the remote owns, as the site server renders it.
    const renderer = await createPageRenderer({ root: deployment.root, remotesDir: deployment.remotesDir });
    const renderFailures: string[] = [];
    let slowest = 0;
    for (const route of routes) {
      const path = examplePath(route);
      const began = performance.now();
      try {
        const page = await withTimeout(
          renderer.renderPage(route, path, candidate),
          serverRenderTimeoutMs,
          'The server render',
        );
        slowest = Math.max(slowest, performance.now() - began);
        const body = page?.document.slice(page.document.indexOf('<div id="root"')) ?? '';
        const headings = body.match(/<h1[\s>]/g)?.length ?? 0;
        if (!page) renderFailures.push(`${path}: the candidate has no server build of ${route.module}`);
        else if (page.status !== 200) renderFailures.push(`${path}: answered ${page.status}`);
        else if (headings !== 1) renderFailures.push(`${path}: ${headings} h1 elements, not one`);
      } catch (error) {
        renderFailures.push(`${path}: ${firstLine(String((error as Error).message ?? error))}`);
      }
    }
    report(
      'server render',
      renderFailures.length === 0,
      renderFailures[0] ?? `${paths.join(', ')}: 200 with one h1 (slowest ${Math.round(slowest)} ms)`,
    );

    // 3. In Chromium, on a temporary site that serves the candidate; 4. the weight, against the live build's.
    const candidateSite = await temporarySite(deployment, candidate, folder, 'candidate');
    closers.push(candidateSite.close);

    const visited = [...paths, ...(control ? [examplePath(control)] : [])];
    const [liveRun, ...runs] = await Promise.all([
      // The live build's routes, for their weight alone: how they behave is not the candidate's to answer for.
      liveSite ? visit(browser, liveSite.url, paths, viewports[1], []) : undefined,
      ...viewports.map((viewport) => visit(browser, candidateSite.url, visited, viewport, paths)),
    ]);
    const controlNote = control ? `, and ${controlPath} (${remotes[control.remote].folder}, control)` : '';
    let ownLiveSite: Promise<{ url: string; close: () => Promise<void> }> | undefined;
    const controlWithLiveVersions = async (viewport: (typeof viewports)[number]) => {
      if (!ownLiveSite) {
        ownLiveSite = temporarySiteInOwnProcess(deployment, live, folder, 'live-control');
        closers.push(async () => (await ownLiveSite)?.close());
      }
      return visit(browser, (await ownLiveSite).url, [controlPath!], viewport, []);
    };
    for (const [index, run] of runs.entries()) {
      const viewport = viewports[index]!;
      const passed =
        `${paths.join(', ')}${controlNote}: hydrated, no error, no unavailable page, no sideways scroll on its routes, ` +
        `layout shift at most ${run!.layoutShift.toFixed(3)}`;
      if (!run!.failure) {
        report(`browser ${viewport.name}`, true, passed);
        continue;
      }
      // The control route is another team's page: when it fails with the live versions alone too, it is not the
      // candidate's doing. Reported, naming its owner, without refusing the candidate. The live versions are served
      // by a process that never loaded the candidate's code (its server build has run in this one).
      const brokenLive = run!.failedPath === controlPath ? await controlWithLiveVersions(viewport) : undefined;
      if (brokenLive?.failure) {
        report(
          `browser ${viewport.name}`,
          true,
          `${paths.join(', ')}: hydrated, no error, no unavailable page, no sideways scroll; the control ${controlPath} ` +
            `fails with the live versions too, so ${remotes[control!.remote].folder}'s live build is broken, not this ` +
            `candidate (${brokenLive.failure})`,
        );
        continue;
      }
      report(`browser ${viewport.name}`, false, run!.failure);
    }

    const scripts = new Set(runs.flatMap((run) => [...run!.scripts]));
    const candidateBytes = brotliBytes(deployment, remote, version, scripts);
    if (subject.liveVersion && liveRun) {
      const liveBytes = brotliBytes(deployment, remote, subject.liveVersion, liveRun.scripts);
      const change = liveBytes ? candidateBytes / liveBytes - 1 : 0;
      const heavier = change > weightAllowance;
      const figures = `${kib(candidateBytes)} of JavaScript (brotli) on its routes, live ${kib(liveBytes)}: ${
        change >= 0 ? '+' : ''
      }${(change * 100).toFixed(1)}% (allowed +${weightAllowance * 100}%)`;
      report(
        'weight',
        !heavier || Boolean(subject.allowHeavier),
        heavier && subject.allowHeavier ? `${figures}, heavier allowed (--allow-heavier)` : figures,
      );
    } else {
      report('weight', true, `${kib(candidateBytes)} of JavaScript (brotli) on its routes; no live build to compare`);
    }
  } catch (error) {
    report('checks', false, firstLine((error as Error).message));
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  }

  return finished();
}

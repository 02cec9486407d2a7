/**
 * Performance budgets: Lighthouse (mobile defaults) on every route of the production build, in Debian's Chromium.
 * Prints a table per route (median of RUNS runs) and exits 1 when a figure misses its budget by more than the
 * noise margin. FLOOR=1 adds the same pages served as plain HTML with their scripts removed.
 *
 * On the routes of issue 27's goals (`/`, `/vendor`, `/privacy`, `/business`; FLOOR_ROUTES picks others) each run of
 * the route follows a run of the React floor (react-floor: an h1 and a button rendered on the server and
 * hydrated, built by the same Vite, served with the same server settings), and the route's figures are printed with
 * the floor's and the difference: TBT at most the floor's + 50 ms, Performance 100 where the floor has 100, CLS
 * under 0.01 are the goals, printed while unmet. Issue 60's budget: every route's TBT at most the floor's + 100 ms
 * (`tbtOverFloorMs`), printed in a table of its own; Performance at least 95 everywhere.
 *
 * Total Blocking Time and the Performance score (which weighs TBT most) are judged on the best of the runs, not the
 * median: on this shared two-core host the same build's TBT median swings from 70 to 300 ms between checks, as
 * other work takes the CPU during Lighthouse's unthrottled load, and that noise only ever adds blocking time.
 * The best run is the closest to what the page itself costs. Both are printed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import { startFloor as startReactFloor } from 'react-floor/serve';
import lighthouse, { type Config, type Flags, type Result } from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { examplePagePaths } from '../example-pages.ts';
import { budgetsOnly, startSite, timingReportOnly, waitFor } from './site.ts';
import { median } from './stats.ts';

const sitePort = Number(process.env.PERF_PORT ?? 4320);
const floorPort = sitePort + 1;
const reactFloorPort = sitePort + 2;
// PERF_MODE=budgets (CI): one run a route, no floor: the figures judged there do not depend on the host's speed.
const reactFloorRoutes = budgetsOnly ? [] : (process.env.FLOOR_ROUTES ?? '/,/vendor,/privacy,/business').split(',');
const runs = Number(process.env.RUNS ?? (budgetsOnly ? 1 : 3));
const withFloor = process.env.FLOOR === '1';
const floorRuns = Number(process.env.FLOOR_RUNS ?? runs);
const only = process.env.ROUTES?.split(',');
const timingFigures = ['Performance (best run)', 'LCP ms', 'TBT ms (best run)', 'TBT ms over the floor'];
const isTiming = (miss: string) => timingFigures.some((name) => miss.includes(` ${name} `));

/**
 * Budgets, and how far a figure may miss one before the run fails (run-to-run noise on this host). Where issue
 * 15's target is not reached yet, the budget keeps what has been reached from getting worse and `goal` is the
 * target, printed while unmet.
 */
export const budgets = {
  /** Of the best run. */
  performance: { min: 99, margin: 2, goal: 99 },
  accessibility: { min: 100, margin: 0 },
  bestPractices: { min: 100, margin: 0 },
  seo: { min: 100, margin: 0 },
  lcpMs: { max: 1200, margin: 300, goal: 1200 },
  cls: { max: 0.01, margin: 0.02, goal: 0.01 },
  /**
   * Issue 15's goal is 120 KiB; this keeps what has been reached (133 KiB) from growing, beside the 3 KiB that field
   * data (issue 26) may add, the 0.17 KiB of V8's compile hints (issue 60: `packages/federation/src/vite.ts`), and the
   * shell's two fixes for Firefox and WebKit (issue 78: a new page held at its top, the brand font's own face), which
   * took `/` to 138.50 KiB (2026-12-02). Issue 79 (no federation runtime before hydration) took it to 127.2 KiB, of
   * which the runtime and the web-vitals chunk come after hydration (101.4 KiB before it: interactive.ts).
   */
  homeScriptKiB: { max: 130, margin: 0, goal: 120 },
};

/**
 * `/` is where issue 15's targets are not reached: in one or two runs of ten its largest paint (the first slide) lands
 * a frame after the text, behind the scripts, and Lighthouse's simulation then carries their CPU time: LCP 0.91-1.05 s
 * in most runs, 2.3 s in those (18 runs, 2026-11-23). Issue 60: Performance at least 95 on every route.
 */
const homeBudgets = {
  performance: { min: 95, margin: 0, goal: 99 },
  lcpMs: { max: 1200, margin: 900, goal: 1200 },
};

/**
 * Issue 60: the main thread stays free on a slow phone. Each route's Total Blocking Time (its best run) at most the
 * React floor's (its best run, in the same run of this script) plus this: the floor's runs beside the route where it
 * is measured beside it (FLOOR_ROUTES), all of the floor's runs elsewhere. A ratio to the floor rather than a figure,
 * so that a slow host neither excuses a route nor fails one that costs what React itself costs there.
 */
export const tbtOverFloorMs = 100;

const budgetsFor = (path: string) => (path === '/' ? { ...budgets, ...homeBudgets } : budgets);

type Figures = {
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  /** The page's JavaScript as the server sends it, Brotli-compressed: the budget. */
  scriptKiB: number;
  /** The same with each response's HTTP/1.1 headers (Lighthouse's transfer size); HTTP/2 compresses those. */
  scriptWireKiB: number;
  /** The best run's Performance score and TBT, which the budgets judge (see above). */
  bestPerformance: number;
  leastTbtMs: number;
  /** Lighthouse's rule for TBT applied to the CPU time of the page's tasks (`cpuBlockingMs`), and its best run. */
  cpuTbtMs: number;
  leastCpuTbtMs: number;
};

const routes = examplePagePaths.filter((path) => !only || only.includes(path));

/** The floor: each page's HTML as the site serves it, minus every script, so nothing runs; the rest is proxied. */
function startFloor(): http.Server {
  return http
    .createServer(async (request, response) => {
      const upstream = await fetch(`http://127.0.0.1:${sitePort}${request.url}`, {
        headers: { 'accept-encoding': 'identity' },
      });
      const type = upstream.headers.get('content-type') ?? '';
      let body: Buffer | string = Buffer.from(await upstream.arrayBuffer());
      if (type.includes('text/html')) {
        body = body
          .toString()
          .replace(/<script\b(?![^>]*application\/ld\+json)[^>]*>[\s\S]*?<\/script>/g, '')
          .replace(/<link[^>]+rel="modulepreload"[^>]*>/g, '');
      }
      response.writeHead(upstream.status, { 'content-type': type, 'cache-control': 'no-cache' });
      response.end(body);
    })
    .listen(floorPort, '127.0.0.1');
}

/** Bytes of the body the server sends for `url` when the browser accepts Brotli, as they come over the wire. */
function compressedBodyBytes(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': 'br, gzip, deflate' } }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve(bytes));
      })
      .on('error', reject);
  });
}

/** The compressed JavaScript the page loaded while Lighthouse watched it load, that is before any interaction. */
async function scriptBodyBytes(result: Result): Promise<number> {
  const details = result.audits['network-requests']?.details as
    { items: { url: string; resourceType?: string }[] } | undefined;
  const scripts = (details?.items ?? []).filter((item) => item.resourceType === 'Script');
  const sizes = await Promise.all(scripts.map((item) => compressedBodyBytes(item.url)));
  return sizes.reduce((total, size) => total + size, 0);
}

/**
 * Issue 60: the blocking time of the page's own work, as a host with cores to spare would see it. Lighthouse's rule
 * for TBT (each main-thread task after the first contentful paint counts its time slowed 4x, less 50 ms) applied to
 * each task's CPU time in the trace Lighthouse recorded, instead of its wall time. On this two-core host the page's
 * main thread waits for a core during Lighthouse's load: tasks of 15-25 ms that ran 1-5 ms (2026-11-29, `/`: 338-578
 * ms of Lighthouse TBT, 32-93 by CPU time). A change to the page moves this figure; the host's load moves the other.
 * The tasks of Lighthouse's own scripts in the page are left out.
 */
function cpuBlockingMs(events: TraceEvent[]): number {
  const paint = events.find((event) => event.name === 'firstContentfulPaint');
  if (!paint) return Number.NaN;
  const mainThread = events.find(
    (event) => event.name === 'thread_name' && event.pid === paint.pid && event.args?.name === 'CrRendererMain',
  )?.tid;
  const slices = events.filter((event) => event.pid === paint.pid && event.tid === mainThread && event.ph === 'X');
  const lighthouseOwn = slices.filter((event) =>
    /_lighthouse-eval|__puppeteer_evaluation_script__/.test(event.args?.data?.url ?? ''),
  );
  return slices
    .filter((task) => task.name === 'RunTask' && task.ts >= paint.ts)
    .filter((task) => !lighthouseOwn.some((own) => own.ts >= task.ts && own.ts <= task.ts + (task.dur ?? 0)))
    .reduce((total, task) => total + Math.max(0, (4 * (task.tdur ?? task.dur ?? 0)) / 1000 - 50), 0);
}

type TraceEvent = {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string; data?: { url?: string } };
};

async function figures(result: Result, trace: TraceEvent[]): Promise<Figures> {
  // A category the run left out (`measure`: all but the first run of a page) is no figure rather than 0.
  const score = (id: string) =>
    result.categories[id] ? Math.round((result.categories[id].score ?? 0) * 100) : Number.NaN;
  const numeric = (id: string) => result.audits[id]?.numericValue ?? Number.NaN;
  const summary = result.audits['resource-summary']?.details as
    { items: { resourceType: string; transferSize: number }[] } | undefined;
  const scriptBytes = summary?.items.find((item) => item.resourceType === 'script')?.transferSize ?? 0;
  return {
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    lcpMs: numeric('largest-contentful-paint'),
    tbtMs: numeric('total-blocking-time'),
    cls: numeric('cumulative-layout-shift'),
    scriptKiB: (await scriptBodyBytes(result)) / 1024,
    scriptWireKiB: scriptBytes / 1024,
    bestPerformance: score('performance'),
    leastTbtMs: numeric('total-blocking-time'),
    cpuTbtMs: cpuBlockingMs(trace),
    leastCpuTbtMs: cpuBlockingMs(trace),
  };
}

function medianFigures(all: Figures[]): Figures {
  const keys = Object.keys(all[0]!) as (keyof Figures)[];
  const figures = Object.fromEntries(keys.map((key) => [key, median(all.map((one) => one[key]))])) as Figures;
  figures.bestPerformance = Math.max(...all.map((one) => one.performance));
  figures.leastTbtMs = Math.min(...all.map((one) => one.tbtMs));
  figures.leastCpuTbtMs = Math.min(...all.map((one) => one.cpuTbtMs));
  return figures;
}

type Budget = { min: number; margin: number; goal?: number } | { max: number; margin: number; goal?: number };

/** Issue 15's goals that a route does not meet yet, where its budget is looser than the goal: printed, not failed. */
function goalsUnmet(path: string, f: Figures): string[] {
  const budgets = budgetsFor(path);
  const checks: [string, number, Budget][] = [
    ['Performance (best run)', f.bestPerformance, budgets.performance],
    ['LCP ms', f.lcpMs, budgets.lcpMs],
    ['CLS', f.cls, budgets.cls],
    ...(path === '/' ? [['JS KiB', f.scriptKiB, budgets.homeScriptKiB] as [string, number, Budget]] : []),
  ];
  return checks
    .filter(([, value, budget]) => {
      if (budget.goal === undefined) return false;
      return 'min' in budget ? value < budget.goal : value > budget.goal;
    })
    .map(([name, value, budget]) => `${path} ${name} ${Number(value.toFixed(3))} (goal ${budget.goal})`);
}

/** Budgets a route misses beyond their noise margin (with PERF_TIMING=report, only those that fail the run). */
function misses(path: string, f: Figures): string[] {
  const found = allMisses(path, f);
  return timingReportOnly ? found.filter((miss) => !isTiming(miss)) : found;
}

function allMisses(path: string, f: Figures): string[] {
  const budgets = budgetsFor(path);
  const found: string[] = [];
  const atLeast = (name: string, value: number, budget: { min: number; margin: number }) => {
    if (value < budget.min - budget.margin) found.push(`${path} ${name} ${value} < ${budget.min}`);
  };
  const atMost = (name: string, value: number, budget: { max: number; margin: number }) => {
    if (value > budget.max + budget.margin) found.push(`${path} ${name} ${value.toFixed(2)} > ${budget.max}`);
  };
  atLeast('Performance (best run)', f.bestPerformance, budgets.performance);
  atLeast('Accessibility', f.accessibility, budgets.accessibility);
  atLeast('Best Practices', f.bestPractices, budgets.bestPractices);
  atLeast('SEO', f.seo, budgets.seo);
  atMost('LCP ms', f.lcpMs, budgets.lcpMs);
  atMost('CLS', f.cls, budgets.cls);
  if (path === '/') atMost('JS KiB', f.scriptKiB, budgets.homeScriptKiB);
  return found;
}

/** A score, or `-` where no run measured its category (the React floor's, taken once: `measure`). */
const scoreCell = (score: number) => (Number.isNaN(score) ? '-' : String(score)).padStart(4);

const row = (label: string, f: Figures) =>
  `| ${label.padEnd(36)} | ${`${f.performance} (${f.bestPerformance})`.padStart(9)} | ${scoreCell(f.accessibility)} | ${scoreCell(
    f.bestPractices,
  )} | ${scoreCell(f.seo)} | ${Math.round(f.lcpMs).toString().padStart(5)} | ${`${Math.round(
    f.tbtMs,
  )} (${Math.round(f.leastTbtMs)})`.padStart(
    10,
  )} | ${f.cls.toFixed(3)} | ${f.scriptKiB.toFixed(1).padStart(6)} | ${f.scriptWireKiB.toFixed(1).padStart(7)} |`;

/**
 * What Lighthouse clears before each run: its own list (it keeps local storage and cookies) and the origin's local
 * storage, IndexedDB and cookies, so that every run is a first visit. Without them, a run came after the runs before
 * it, on any route: the brand font's mark (`brandFontKey`, set once a page is interactive) made the next page ask for
 * the font with its first bytes, the font's file gone with Lighthouse's cleared cache (issue 60: `/` scored better or
 * worse by 100-300 ms of TBT by the run it followed).
 */
const firstVisit: Flags['clearStorageTypes'] = [
  'file_systems',
  'shader_cache',
  'service_workers',
  'cache_storage',
  'local_storage',
  'indexeddb',
  'cookies',
];

/** One Lighthouse run of `url`, as a first visit, with its mobile defaults or `config`; throws when it has no result. */
async function lighthouseRun(url: string, flags: Flags, config?: Config) {
  const once = () => lighthouse(url, { clearStorageTypes: firstVisit, ...flags }, config);
  // Lighthouse now and then fails to record a trace (NO_NAVSTART); that run is taken again, twice at most.
  let result = await once();
  for (let retry = 0; retry < 2 && result?.lhr.runtimeError?.code === 'NO_NAVSTART'; retry++) {
    result = await once();
  }
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  if (result.lhr.runtimeError) throw new Error(`${url}: ${result.lhr.runtimeError.message}`);
  return result;
}

/**
 * Issue 56: on a desktop (Lighthouse's desktop preset), `/` paints its largest element with its first paint: the
 * median of the runs' LCP over FCP at most `desktopLcpOverFcp`, reported (the goal is unmet: 1.4-1.5x). Prints each run
 * and what the element was.
 */
const desktopLcpOverFcp = 1.2;

async function desktopLargestPaint(port: number): Promise<string[]> {
  const url = `http://127.0.0.1:${sitePort}/`;
  const all: { fcp: number; lcp: number; element: string }[] = [];
  const ratio = () => median(all.map((run) => run.lcp / run.fcp));
  console.log(`\nLighthouse's desktop preset on /, LCP against FCP (at most ${desktopLcpOverFcp}×, median of runs)`);
  console.log('| run | FCP ms | LCP ms | LCP / FCP | LCP element |');
  console.log('| --- | ------ | ------ | --------- | ----------- |');
  for (let run = 0; run < runs; run++) {
    const result = await lighthouseRun(
      url,
      { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
      desktopConfig,
    );
    const audits = result.lhr.audits;
    const element = (
      audits['largest-contentful-paint-element']?.details as
        { items?: { items?: { node?: { nodeLabel?: string; selector?: string } }[] }[] } | undefined
    )?.items?.[0]?.items?.[0]?.node;
    const figures = {
      fcp: audits['first-contentful-paint']!.numericValue!,
      lcp: audits['largest-contentful-paint']!.numericValue!,
      element: `${element?.selector ?? '?'} (${element?.nodeLabel ?? ''})`,
    };
    all.push(figures);
    console.log(
      `| ${String(all.length).padStart(3)} | ${Math.round(figures.fcp).toString().padStart(6)} | ${Math.round(figures.lcp).toString().padStart(6)} | ${(figures.lcp / figures.fcp).toFixed(2).padStart(8)}× | ${figures.element} |`,
    );
  }
  console.log(`median LCP / FCP: ${ratio().toFixed(2)}× over ${all.length} runs`);
  return ratio() > desktopLcpOverFcp
    ? [`/ on a desktop: LCP ${ratio().toFixed(2)}× its FCP > ${desktopLcpOverFcp}× (median of ${all.length})`]
    : [];
}

async function main() {
  const site = startSite(sitePort);
  const floor = withFloor ? startFloor() : undefined;
  const reactFloorServer = await startReactFloor(reactFloorPort);
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath,
    chromeFlags: ['--headless=new', ...chromiumArgs],
  });
  const failures: string[] = [];
  const goals: string[] = [];
  const timingOver: string[] = [];
  try {
    await waitFor(`http://127.0.0.1:${sitePort}/remotes.json`);
    const flags: Flags = { port: chrome.port, output: 'json', logLevel: 'error' };
    // Accessibility, best practices and SEO read the page as it stands, the same in every run: they are taken from a
    // page's first run, and its other runs measure performance alone (about 2 s less each: 1.5-2 min of CI's run).
    const seen = new Set<string>();
    const measure = async (url: string, times = runs) => {
      const all: Figures[] = [];
      for (let run = 0; run < times; run++) {
        // `pnpm bench` (timing mode) measures performance alone: the other categories are `pnpm perf`'s, in CI.
        const performanceOnly = seen.has(url) || !budgetsOnly;
        const result = await lighthouseRun(
          url,
          performanceOnly ? { ...flags, onlyCategories: ['performance'] } : flags,
        );
        seen.add(url);
        // LH_JSON=<folder> keeps every report, for digging into a figure.
        if (process.env.LH_JSON) {
          mkdirSync(process.env.LH_JSON, { recursive: true });
          const name = `${new URL(url).pathname.replace(/\W+/g, '_') || 'home'}-${run}.json`;
          writeFileSync(join(process.env.LH_JSON, name), JSON.stringify(result.lhr));
        }
        all.push(await figures(result.lhr, result.artifacts.Trace.traceEvents as TraceEvent[]));
      }
      return all;
    };
    console.log(
      `Lighthouse ${runs > 1 ? `median of ${runs} runs` : '1 run'}, mobile defaults, ${new Date().toISOString()}`,
    );
    console.log(
      '| route                                | Perf (best) | A11y |  BP  | SEO  | LCP ms | TBT ms (least) | CLS   | JS KiB | on wire |',
    );
    console.log(
      '| ------------------------------------ | --------- | ---- | ---- | ---- | ----- | ---------- | ----- | ------ | ------- |',
    );
    const reactFloor = `http://127.0.0.1:${reactFloorPort}/`;
    const floorPooled = new Map<string, Figures[]>();
    /** The route's runs, each after a run of the React floor on the routes compared with it. */
    const measureRoute = async (path: string) => {
      if (!reactFloorRoutes.includes(path)) return measure(`http://127.0.0.1:${sitePort}${path}`);
      const all: Figures[] = [];
      for (let run = 0; run < runs; run++) {
        floorPooled.set(path, [...(floorPooled.get(path) ?? []), ...(await measure(reactFloor, 1))]);
        all.push(...(await measure(`http://127.0.0.1:${sitePort}${path}`, 1)));
      }
      return all;
    };
    /** The floor's runs a route is judged against: those beside it, or all of them (issue 60). */
    const floorFor = (path: string) => floorPooled.get(path) ?? [...floorPooled.values()].flat();
    /**
     * Issue 60's budget, judged by CPU time (Lighthouse's rule on each task's CPU time): on this two-core host
     * Lighthouse's wall-clock TBT is mostly the page's main thread waiting for a core (issue 60, blocked on that
     * part), so the wall clock is printed beside it and reported, not judged.
     */
    const tbtOverFloor = (path: string, result: Figures, clock: 'cpu' | 'wall' = 'cpu'): string[] => {
      const floorRuns = floorFor(path);
      if (!floorRuns.length) return [];
      const least = (f: Figures) => (clock === 'cpu' ? f.leastCpuTbtMs : f.leastTbtMs);
      const over = least(result) - least(medianFigures(floorRuns));
      const name =
        clock === 'cpu' ? 'TBT ms by CPU time over the floor' : 'TBT ms over the floor (wall clock, not judged)';
      return over > tbtOverFloorMs ? [`${path} ${name} ${Math.round(over)} > ${tbtOverFloorMs} (best run each)`] : [];
    };
    const missesOf = (path: string, result: Figures) => [
      ...misses(path, result),
      ...(timingReportOnly ? [] : tbtOverFloor(path, result)),
    ];
    const tbtTable: string[] = [];
    for (const path of routes) {
      const pooled = await measureRoute(path);
      let result = medianFigures(pooled);
      let missed = missesOf(path, result);
      // A median can still catch a noisy moment on a shared machine (LCP jumps by 600 ms about once in 20
      // medians here): a route that misses is measured again, twice at most, and fails if it keeps missing. The
      // new runs join the earlier ones, so each verdict rests on more runs (3, 6, 9) rather than on the last three.
      for (let again = 0; again < 2 && missed.length; again++) {
        console.log(`| ${`${path} (missed, measuring again)`.padEnd(36)} | ${missed.join('; ')} |`);
        pooled.push(...(await measureRoute(path)));
        result = medianFigures(pooled);
        missed = missesOf(path, result);
      }
      console.log(row(path, result));
      if (timingReportOnly) timingOver.push(...allMisses(path, result).filter(isTiming), ...tbtOverFloor(path, result));
      timingOver.push(...tbtOverFloor(path, result, 'wall'));
      const floorFigures = floorFor(path).length ? medianFigures(floorFor(path)) : undefined;
      const floorTbt = floorFigures?.leastTbtMs ?? Number.NaN;
      const floorCpuTbt = floorFigures?.leastCpuTbtMs ?? Number.NaN;
      const ms = (value: number, width: number) => String(Math.round(value)).padStart(width);
      tbtTable.push(
        `| ${path.padEnd(23)} | ${ms(result.leastTbtMs, 8)} | ${ms(floorTbt, 8)} | ${`+${Math.round(result.leastTbtMs - floorTbt)}`.padStart(10)} | ${ms(result.leastCpuTbtMs, 11)} | ${ms(floorCpuTbt, 7)} | ${`+${Math.round(result.leastCpuTbtMs - floorCpuTbt)}`.padStart(10)} | ${String(result.bestPerformance).padStart(11)} | ${floorPooled.has(path) ? 'beside it' : 'all runs'} |`,
      );
      goals.push(...goalsUnmet(path, result));
      failures.push(...missed);
      const reactFloorRuns = floorPooled.get(path);
      if (reactFloorRuns) {
        const f = medianFigures(reactFloorRuns);
        console.log(row(`${path} (React floor)`, f));
        const tbtOver = result.leastTbtMs - f.leastTbtMs;
        console.log(
          `| ${`${path} minus floor`.padEnd(36)} | ${String(result.bestPerformance - f.bestPerformance).padStart(9)} |      |      |      | ${String(Math.round(result.lcpMs - f.lcpMs)).padStart(5)} | ${`+${Math.round(tbtOver)}`.padStart(10)} | ${(result.cls - f.cls).toFixed(3)} | ${(result.scriptKiB - f.scriptKiB).toFixed(1).padStart(6)} |         |`,
        );
        if (tbtOver > 50) goals.push(`${path} TBT (least) ${Math.round(tbtOver)} ms over the React floor's (goal 50)`);
        if (f.bestPerformance === 100 && result.bestPerformance < 100)
          goals.push(`${path} Performance (best) ${result.bestPerformance} where the React floor has 100 (goal 100)`);
        if (result.cls >= 0.01) goals.push(`${path} CLS ${result.cls.toFixed(3)} (goal under 0.01)`);
      }
      if (floor) {
        const label = `${path} (floor: no scripts)`;
        // A page that needs JavaScript to show anything paints nothing here: that is the finding.
        const result = await measure(`http://127.0.0.1:${floorPort}${path}`, floorRuns).then(
          medianFigures,
          (error: Error) => error,
        );
        console.log(
          result instanceof Error ? `| ${label.padEnd(36)} | ${result.message.slice(0, 80)} |` : row(label, result),
        );
      }
    }
    if (!budgetsOnly) {
      console.log(
        `\nTotal Blocking Time against the React floor (issue 60: at most +${tbtOverFloorMs} ms; Lighthouse mobile, best of ${runs} runs each;`,
      );
      console.log(
        "by CPU time: Lighthouse's rule on each task's CPU time in the same traces, the host's waits left out)",
      );
      console.log(
        "| route                   | TBT (ms) | floor's | difference | by CPU time | floor's | difference | Performance | floor runs |",
      );
      console.log(
        '| ----------------------- | -------- | ------- | ---------- | ----------- | ------- | ---------- | ----------- | ---------- |',
      );
      console.log(tbtTable.join('\n'));
      if (!only || only.includes('/')) {
        // Issue 56's goal, unmet since (1.4-1.5x): printed and reported, not judged.
        timingOver.push(...(await desktopLargestPaint(chrome.port)));
      }
    }
  } finally {
    chrome.kill();
    floor?.close();
    await reactFloorServer.close();
    site.kill('SIGTERM');
  }
  const margins = Object.entries(budgets)
    .map(([name, budget]) => `${name} ${'min' in budget ? `>= ${budget.min}` : `<= ${budget.max}`} (±${budget.margin})`)
    .join(', ');
  console.log(
    `\nBudgets (noise margin): ${margins}; on /: Performance >= 95, LCP <= 1200 (±900); every route: TBT (best run) <= the React floor's + ${tbtOverFloorMs} ms`,
  );
  if (goals.length)
    console.log(`\nGoals not met yet (issues 15 and 27):\n${goals.map((line) => `- ${line}`).join('\n')}`);
  if (timingOver.length) {
    console.log(
      `\nReported, not judged (timing in budgets mode, or a goal this host cannot judge):\n${timingOver.map((line) => `- ${line}`).join('\n')}`,
    );
  }
  if (failures.length) {
    console.log(`\n${failures.length} budget(s) missed:\n${failures.map((line) => `MISSED ${line}`).join('\n')}`);
    process.exit(1);
  }
  console.log('Every route is within its budgets.');
}

await main();

/**
 * From first paint to interactive, on the phone profile (Lighthouse's mobile preset through CDP), beside the floors:
 * every route is loaded RUNS times (5 by default) in a fresh context, right after a load of the React floor
 * (react-floor: an h1 and a button rendered on the server and hydrated, built by the same Vite and served with the
 * same server settings) that it shares with the next route (FLOOR_EVERY), so that both see the same minute of this
 * shared machine (FLOOR_ROUTES picks fewer routes to measure so). Per route: the median first contentful paint and hydrated time (the `hydrated` mark, which both set
 * when their page is hydrated), both from navigation start, beside the floor's and as ratios to them; first paint to
 * hydrated for the site and the floor and their difference; the longest animation frame whose scripts are the
 * site's own; the scripts requested before hydration with their compressed bytes. Then what each route put on the
 * line before it hydrated, by kind (the page, styles, scripts, fonts, images), and where the time of the long
 * animation frames (over 50 ms) goes, by chunk and remote (Long Animation Frames API), so that a reader sees where
 * each millisecond goes. Exits 1 when a budget is missed by more than its noise margin. `ROUTES=/,/vendor` picks
 * routes.
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { startFloor } from 'react-floor/serve';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { examplePagePaths } from '../example-pages.ts';
import { firstContentfulPaint, phonePage, untilHydrated } from '../phone.ts';
import { budgetsOnly, startSite, timingReportOnly, waitFor } from './site.ts';
import { differenceInterval, median, ratioInterval } from './stats.ts';

const port = Number(process.env.INTERACTIVE_PORT ?? 4340);
const base = `http://127.0.0.1:${port}`;
const floorBase = `http://127.0.0.1:${port + 10}`;
// PERF_MODE=budgets (CI): one load a route and no floor: bytes and requests on the line do not depend on the host.
const runs = Number(process.env.RUNS ?? (budgetsOnly ? 1 : 5));
const only = process.env.ROUTES?.split(',');
/**
 * The shell alone: its own page for an unknown address, which loads no remote. Measured beside the floor too, it is
 * what the shell, its router and the federation host cost before any remote's code; not a goal of its own.
 */
const shellAlone = '/no-such-page';
const routes = [...examplePagePaths, shellAlone].filter((path) => !only || only.includes(path));
/** Every route is measured beside the floor (issue 46's budgets are ratios to it); FLOOR_ROUTES picks fewer. */
const floorRoutes = budgetsOnly ? [] : (process.env.FLOOR_ROUTES?.split(',') ?? routes);
/**
 * How many routes share a load of the floor (FLOOR_EVERY, 2): each round loads the floor, then each of them once, so
 * that each still sees the floor's minute, with half the floor's loads of one per route.
 */
const floorEvery = Math.max(1, Number(process.env.FLOOR_EVERY ?? 2));

/**
 * Budgets, and how far a median may miss one before the run fails (run-to-run noise here). Each `max` keeps what
 * has been reached from getting worse; `goal` is the issue's, printed while it is not met: issue 27's are
 * differences to the React floor measured in the same run (first paint to hydrated at most floor + 400 ms, no long
 * animation frame over 50 ms from the site's scripts) and, on `/`, at most 12 scripts and 100 KiB before hydration.
 */
export const budgets = {
  gapMs: { max: 1500, margin: 150 },
  gapOverFloorMs: { goal: 400 },
  siteFrameMs: { goal: 50 },
  // Field data (issue 26) loads its one script after hydration, so it is not counted here. Issue 79 (the first load
  // without the federation runtime): at most 10 scripts, 115 KiB of JavaScript and 135 KiB on the line (17 scripts,
  // 136.4 KiB and 157.6 KiB before it); issue 27's 100 KiB stays the goal.
  homeScriptRequests: { max: 10, margin: 0, goal: 10 },
  homeScriptKiB: { max: 115, margin: 0, goal: 100 },
  /**
   * Issue 46: what `/` puts on the line before it hydrates, every kind (the page, its styles, scripts, fonts, images),
   * compressed as sent (233 KiB before it; 160 before issue 79).
   */
  homeLineKiB: { max: 135 },
  /**
   * A route's median hydrated time (from navigation start) over the floor's, measured in the same run: issue 79's
   * 1.6x on `/` and 1.5x elsewhere (1.83-2.10x and 1.79-2.02x before it).
   */
  hydratedOverFloor: { home: 1.6, max: 1.5, margin: 0.1 },
  /**
   * Issue 46: first paint no later than before it, as a ratio to the floor's first paint in the same run. Before it
   * the routes sat at 1.5-2.6× (their medians move by 0.3 between runs, as the floor's first paint does: 340-560 ms
   * here); after it at 1.3-1.8×. One cap for every route, under what most of them had. Issue 79's goal: 1.3×.
   */
  firstPaintOverFloor: { max: 2.1, margin: 0.15, goal: 1.3 },
  /**
   * Issue 60: no task over 100 ms from first paint to 3 s after hydration (the median load's longest). Where the
   * React floor's own longest is longer (the one task in which it evaluates React and hydrates: 135-200 ms on this
   * host's phone profile), no longer than the floor's: what React itself costs on the host is not the site's.
   */
  longestTaskMs: { max: 100, margin: 25 },
  /** Issue 79's goal: blocking time (first paint to 3 s after hydration) within 25 ms of the floor's (100: issue 60). */
  blockingOverFloorMs: { goal: 25 },
};

/** Issue 60: the routes measured again with the CPU slowed 6x instead of 4x, beside the floor: printed, not judged. */
const slowerRoutes = budgetsOnly || process.env.SLOWER === '0' ? [] : ['/', '/vendor', '/privacy', '/business'];

/** Issue 46's budgets of a route, from its medians as ratios to the floor's: what they miss. */
function overFloor(path: string, firstPaint: number, hydrated: number): string[] {
  if (path === shellAlone || Number.isNaN(hydrated)) return [];
  const { hydratedOverFloor: most, firstPaintOverFloor: paint } = budgets;
  const hydratedMax = path === '/' ? most.home : most.max;
  return [
    ...(hydrated > hydratedMax + most.margin ? [`hydrated ${hydrated.toFixed(2)}× the floor's > ${hydratedMax}×`] : []),
    ...(firstPaint > paint.max + paint.margin
      ? [`first paint ${firstPaint.toFixed(2)}× the floor's > ${paint.max}×`]
      : []),
  ];
}

/** A row of the main thread's tables: the route's longest task and blocking time beside the floor's. */
function mainThreadRow(
  path: string,
  longest: number,
  floorLongest: number,
  blocking: number,
  floorBlocking: number,
  extra?: string,
) {
  const ms = (value: number, width: number) => (Number.isNaN(value) ? '-' : String(Math.round(value))).padStart(width);
  const difference = Number.isNaN(floorBlocking)
    ? '-'
    : `${blocking >= floorBlocking ? '+' : ''}${Math.round(blocking - floorBlocking)}`;
  return `| ${(path === shellAlone ? `${path} (shell)` : path).padEnd(23)} | ${ms(longest, 15)} | ${ms(floorLongest, 5)} | ${ms(blocking, 11)} | ${ms(floorBlocking, 5)} | ${difference.padStart(10)} |${extra === undefined ? '' : ` ${extra.padStart(18)} |`}`;
}

/** One script's share of a long animation frame, as the Long Animation Frames API reports it. */
interface FrameScript {
  url: string;
  fn: string;
  invoker: string;
  ms: number;
  /** Style and layout the script forced (reading a size after a change), part of `ms`. */
  forcedMs: number;
}

interface Frame {
  ms: number;
  blockingMs: number;
  /** The frame's own style, layout and paint, after its scripts. */
  renderMs: number;
  scripts: FrameScript[];
}

/** What a file on the line is, by what the browser fetched it as. */
export const kinds = ['document', 'style', 'script', 'font', 'image', 'other'] as const;
export type Kind = (typeof kinds)[number];

export function kindOf(url: string, initiator: string): Kind {
  const path = url.split(/[?#]/)[0]!;
  if (initiator === 'navigation') return 'document';
  if (/\.m?js$/.test(path)) return 'script';
  if (/\.css$/.test(path)) return 'style';
  if (/\.(woff2?|ttf|otf)$/.test(path)) return 'font';
  if (/\.(png|jpe?g|gif|webp|avif|svg|ico)$/.test(path)) return 'image';
  return 'other';
}

interface Load {
  fcpMs: number;
  hydratedMs: number;
  /** Scripts requested before the page was hydrated, and their bytes as sent (compressed). */
  scripts: number;
  scriptKiB: number;
  /** KiB of every file asked for before the page was hydrated (the page itself too), as sent, by kind. */
  line: Record<Kind, number>;
  /** The same with each response's HTTP/1.1 headers (Resource Timing's transfer size). */
  wireKiB: number;
  frames: Frame[];
  /** Issue 60: the longest task, and the blocking time (each task's time over 50 ms, added up), from first paint to 3 s after hydration. */
  longestTaskMs: number;
  blockingMs: number;
}

/** Long animation frames from the first moment, kept on `window` for the measure to read. */
function observeLongFrames() {
  const frames: unknown[] = [];
  (window as unknown as { longFrames: unknown[] }).longFrames = frames;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & {
      blockingDuration: number;
      styleAndLayoutStart: number;
      scripts: (PerformanceEntry & {
        sourceURL: string;
        sourceFunctionName: string;
        invoker: string;
        forcedStyleAndLayoutDuration: number;
      })[];
    })[]) {
      frames.push({
        ms: entry.duration,
        blockingMs: entry.blockingDuration,
        renderMs: entry.styleAndLayoutStart ? entry.startTime + entry.duration - entry.styleAndLayoutStart : 0,
        scripts: entry.scripts.map((script) => ({
          url: script.sourceURL,
          fn: script.sourceFunctionName,
          invoker: script.invoker,
          ms: script.duration,
          forcedMs: script.forcedStyleAndLayoutDuration,
        })),
      });
    }
  }).observe({ type: 'long-animation-frame', buffered: true });
  const tasks: { start: number; ms: number }[] = [];
  (window as unknown as { longTasks: unknown[] }).longTasks = tasks;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) tasks.push({ start: entry.startTime, ms: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
}

/** How long after hydration the main thread is watched for long tasks (issue 60). */
const watchAfterHydratedMs = 3000;

async function load(browser: Browser, url: string, cpuSlowdown = 4): Promise<Load> {
  const page: Page = await phonePage(browser);
  if (cpuSlowdown !== 4) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  }
  await page.addInitScript(observeLongFrames);
  const sent = new Map<string, number>();
  page.on('requestfinished', async (request) => {
    if (request.resourceType() === 'script') sent.set(request.url(), (await request.sizes()).responseBodySize);
  });
  try {
    await page.goto(url, { waitUntil: 'commit' });
    const fcpMs = await firstContentfulPaint(page);
    await untilHydrated(page);
    // What the page fetches by itself once hydrated (code that waits for idle time or for the first frame).
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(
      (after) => performance.now() > (performance.getEntriesByName('hydrated')[0]?.startTime ?? 0) + after,
      watchAfterHydratedMs,
      { polling: 100, timeout: 30_000 },
    );
    const { hydratedMs, asked, frames, tasks } = await page.evaluate(() => {
      const hydrated = performance.getEntriesByName('hydrated')[0]?.startTime ?? NaN;
      const entries = [
        ...performance.getEntriesByType('navigation'),
        ...performance.getEntriesByType('resource'),
      ] as PerformanceResourceTiming[];
      return {
        hydratedMs: hydrated,
        asked: entries
          .filter((entry) => entry.startTime < hydrated)
          .map((entry) => ({
            url: entry.name,
            initiator: entry.initiatorType,
            bytes: entry.encodedBodySize,
            wire: entry.transferSize,
          })),
        frames: (window as unknown as { longFrames: Frame[] }).longFrames,
        tasks: (window as unknown as { longTasks: { start: number; ms: number }[] }).longTasks,
      };
    });
    const watched = tasks.filter(
      (task) => task.start + task.ms > fcpMs && task.start < hydratedMs + watchAfterHydratedMs,
    );
    const longestTaskMs = Math.max(0, ...watched.map((task) => task.ms));
    const blockingMs = watched.reduce((total, task) => total + Math.max(0, task.ms - 50), 0);
    const line = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<Kind, number>;
    for (const file of asked) line[kindOf(file.url, file.initiator)] += file.bytes / 1024;
    const wireKiB = asked.reduce((total, file) => total + file.wire, 0) / 1024;
    const scripts = asked.filter((file) => kindOf(file.url, file.initiator) === 'script');
    const bytes = scripts.reduce((total, file) => total + (sent.get(file.url) ?? 0), 0);
    return {
      fcpMs,
      hydratedMs,
      scripts: scripts.length,
      scriptKiB: bytes / 1024,
      line,
      wireKiB,
      frames,
      longestTaskMs,
      blockingMs,
    };
  } finally {
    await page.context().close();
  }
}

/** Which of the site's builds a script came from: the shell, a remote (by its folder), the page's inline script. */
export function chunkOf(url: string): { owner: string; chunk: string } {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return { owner: 'other', chunk: url };
  }
  const file = path.split('/').pop() ?? path;
  const remote = /^\/remotes\/([^/]+)\//.exec(path)?.[1];
  if (remote) return { owner: remote, chunk: file };
  if (/\.m?js$/.test(path)) return { owner: 'shell', chunk: file };
  return { owner: 'page', chunk: "(the page's inline script)" };
}

/** A script of this site (not the floor's, not the browser's). */
const isSiteScript = (script: FrameScript) => /\/(assets|remotes)\//.test(script.url);

async function main() {
  const site = startSite(port);
  const floor = await startFloor(port + 10);
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const misses: string[] = [];
  const goals: string[] = [];
  const timingOver: string[] = [];
  const attribution: string[] = [];
  const lines: { path: string; line: Record<Kind, number>; total: number; wire: number }[] = [];
  const mainThread: string[] = [];
  const paintReach: string[] = [];
  const blockingReach: string[] = [];
  const slower: string[] = [];
  try {
    await waitFor(`${base}/remotes.json`);
    console.log(
      `\nFirst paint to interactive, phone profile (4x CPU, 150 ms, 1.6 Mbit/s), median of ${runs}, on ${floorRoutes.join(', ')} each load after one of the React floor, ${new Date().toISOString()}`,
    );
    // One load of each first, unmeasured: the servers' first responses (reading builds, compressing) are not a visitor's.
    if (!budgetsOnly) await load(browser, `${floorBase}/`);
    await load(browser, base + (routes[0] ?? '/'));
    const header =
      '| route                   | FCP ms | floor | × floor | hydrated ms | floor | × floor | FCP→hydrated | floor | difference | longest site frame ms | scripts | JS KiB |';
    console.log(header);
    console.log(header.replace(/[^|]/g, '-'));
    const measured = new Map<string, { loads: Load[]; floors: Load[] }>();
    /** RUNS rounds of a load of the floor (when one of `paths` is measured beside it), then one of each of `paths`. */
    const measure = async (paths: string[]) => {
      for (let run = 0; run < runs; run++) {
        const beside = paths.some((path) => floorRoutes.includes(path));
        const floorLoad = beside ? await load(browser, `${floorBase}/`) : undefined;
        for (const path of paths) {
          const figures = measured.get(path) ?? { loads: [], floors: [] };
          measured.set(path, figures);
          if (floorLoad && floorRoutes.includes(path)) figures.floors.push(floorLoad);
          figures.loads.push(await load(browser, base + path));
        }
      }
    };
    for (const [index, path] of routes.entries()) {
      if (index % floorEvery === 0) await measure(routes.slice(index, index + floorEvery));
      const { loads, floors } = measured.get(path)!;
      const at = (of: Load[], figure: (one: Load) => number) => median(of.map(figure));
      const gapOf = (of: Load[]) => at(of, (one) => one.hydratedMs - one.fcpMs);
      const ratio = (figure: (one: Load) => number) => (floors.length ? at(loads, figure) / at(floors, figure) : NaN);
      const gapMiss = () =>
        gapOf(loads) > budgets.gapMs.max + budgets.gapMs.margin
          ? [`first paint to hydrated ${Math.round(gapOf(loads))} ms > ${budgets.gapMs.max} ms`]
          : [];
      // Timing budgets, the ratios to the floor too, are reported and not failed in budgets mode (CI) or under PERF_TIMING=report.
      const ratioMisses = () =>
        overFloor(
          path,
          ratio((one) => one.fcpMs),
          ratio((one) => one.hydratedMs),
        );
      const failing = () => (timingReportOnly ? [] : [...gapMiss(), ...ratioMisses()]);
      // As in perf.ts: a median can catch a busy moment of this shared machine, so a route that misses is measured
      // again, twice at most, the new loads joining the earlier ones.
      for (let again = 0; again < 2 && failing().length; again++) {
        console.log(`| ${`${path} (missed, measuring again)`.padEnd(23)} | ${failing().join('; ')} |`);
        await measure([path]);
      }
      const gap = gapOf(loads);
      const floorGap = floors.length ? gapOf(floors) : undefined;
      const longest = median(
        loads.map((one) =>
          Math.max(0, ...one.frames.filter((frame) => frame.scripts.some(isSiteScript)).map((frame) => frame.ms)),
        ),
      );
      const scripts = median(loads.map((one) => one.scripts));
      const kib = median(loads.map((one) => one.scriptKiB));
      const ms = (value: number | undefined, width: number) =>
        (value === undefined || Number.isNaN(value) ? '-' : String(Math.round(value))).padStart(width);
      const times = (value: number) => (Number.isNaN(value) ? '-' : `${value.toFixed(2)}×`).padStart(7);
      const cells = [
        (path === shellAlone ? `${path} (shell)` : path).padEnd(23),
        ms(
          at(loads, (one) => one.fcpMs),
          6,
        ),
        ms(floors.length ? at(floors, (one) => one.fcpMs) : undefined, 5),
        times(ratio((one) => one.fcpMs)),
        ms(
          at(loads, (one) => one.hydratedMs),
          11,
        ),
        ms(floors.length ? at(floors, (one) => one.hydratedMs) : undefined, 5),
        times(ratio((one) => one.hydratedMs)),
        ms(gap, 12),
        ms(floorGap, 5),
        (floorGap === undefined ? '-' : `+${Math.round(gap - floorGap)}`).padStart(10),
        String(Math.round(longest)).padStart(21),
        String(scripts).padStart(7),
        kib.toFixed(1).padStart(6),
      ];
      console.log(`| ${cells.join(' | ')} |`);
      const line = Object.fromEntries(kinds.map((kind) => [kind, at(loads, (one) => one.line[kind])])) as Record<
        Kind,
        number
      >;
      const lineKiB = at(loads, (one) => kinds.reduce((total, kind) => total + one.line[kind], 0));
      lines.push({ path, line, total: lineKiB, wire: at(loads, (one) => one.wireKiB) });
      const longestTask = at(loads, (one) => one.longestTaskMs);
      const floorLongest = floors.length ? at(floors, (one) => one.longestTaskMs) : Number.NaN;
      const blocking = at(loads, (one) => one.blockingMs);
      const floorBlocking = floors.length ? at(floors, (one) => one.blockingMs) : Number.NaN;
      mainThread.push(mainThreadRow(path, longestTask, floorLongest, blocking, floorBlocking));
      const paintRatio = ratio((one) => one.fcpMs);
      // Each load beside the floor's of its round (measure() keeps them in step).
      const [paintLow, paintHigh] = ratioInterval(floors.map((floor, round) => [loads[round]!.fcpMs, floor.fcpMs]));
      const paintGoal = budgets.firstPaintOverFloor.goal;
      const reach = `${paintLow.toFixed(2)}-${paintHigh.toFixed(2)}×`;
      if (floors.length) {
        const where = paintLow > paintGoal ? 'over it' : paintHigh <= paintGoal ? 'under it' : 'within the noise';
        paintReach.push(
          `| ${path.padEnd(23)} | ${paintRatio.toFixed(2).padStart(7)}× | ${reach.padStart(11)} | ${where.padEnd(16)} |`,
        );
      }
      if (path !== shellAlone && paintRatio > paintGoal)
        goals.push(
          `${path}: first paint ${paintRatio.toFixed(2)}× the floor's (goal ${paintGoal}×; this run's noise reaches ${reach})`,
        );
      const longestAllowed = Math.max(budgets.longestTaskMs.max, Number.isNaN(floorLongest) ? 0 : floorLongest);
      if (path !== shellAlone && longestTask > longestAllowed + budgets.longestTaskMs.margin) {
        (timingReportOnly ? timingOver : misses).push(
          `${path}: a ${Math.round(longestTask)} ms task from first paint to 3 s after hydration > ${Math.round(longestAllowed)} ms (${budgets.longestTaskMs.max}, or the floor's longest)`,
        );
      }
      const blockingGoal = budgets.blockingOverFloorMs.goal;
      const [blockingLow, blockingHigh] = differenceInterval(
        floors.map((floor, round) => [loads[round]!.blockingMs, floor.blockingMs]),
      );
      const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${Math.round(ms)}`;
      const blockingSpan = `${signed(blockingLow)} to ${signed(blockingHigh)}`;
      if (floors.length) {
        const where =
          blockingLow > blockingGoal ? 'over it' : blockingHigh <= blockingGoal ? 'under it' : 'within the noise';
        blockingReach.push(
          `| ${path.padEnd(23)} | ${signed(blocking - floorBlocking).padStart(10)} | ${blockingSpan.padStart(16)} | ${where.padEnd(16)} |`,
        );
      }
      if (path !== shellAlone && blocking - floorBlocking > blockingGoal)
        goals.push(
          `${path}: blocking time ${Math.round(blocking - floorBlocking)} ms over the floor's (goal ${blockingGoal}; this run's noise reaches ${blockingSpan} ms)`,
        );
      (timingReportOnly ? timingOver : misses).push(...gapMiss().map((miss) => `${path}: ${miss}`));
      (timingReportOnly ? timingOver : misses).push(...ratioMisses().map((miss) => `${path}: ${miss}`));
      if (path === '/' && lineKiB > budgets.homeLineKiB.max) {
        misses.push(`/: ${lineKiB.toFixed(1)} KiB on the line before hydration > ${budgets.homeLineKiB.max} KiB`);
      }

      // Where the long frames' time goes, per load on average: each script by remote and chunk (with the function
      // that took most of it), the style and layout scripts forced, and the frames' own rendering.
      const byChunk = new Map<string, { ms: number; fns: Map<string, number> }>();
      let forced = 0;
      let rendering = 0;
      let other = 0;
      for (const one of loads) {
        for (const frame of one.frames.filter((each) => each.ms > 50)) {
          const scriptMs = frame.scripts.reduce((total, script) => total + script.ms, 0);
          rendering += frame.renderMs;
          other += Math.max(0, frame.ms - scriptMs - frame.renderMs);
          for (const script of frame.scripts) {
            const { owner, chunk } = chunkOf(script.url);
            const key = `${owner} ${chunk}`;
            const entry = byChunk.get(key) ?? { ms: 0, fns: new Map() };
            entry.ms += script.ms;
            forced += script.forcedMs;
            // A module's evaluation has no function name; its invoker is then its own URL.
            const fn = script.fn || (script.invoker === script.url ? 'evaluation' : script.invoker);
            entry.fns.set(fn, (entry.fns.get(fn) ?? 0) + script.ms);
            byChunk.set(key, entry);
          }
        }
      }
      const perLoad = (ms: number) => Math.round(ms / loads.length);
      const rows = [...byChunk].sort((a, b) => b[1].ms - a[1].ms).slice(0, 6);
      attribution.push(
        [
          `${path}:`,
          ...rows.map(([key, { ms, fns }]) => {
            const [fn] = [...fns].sort((a, b) => b[1] - a[1]);
            return `  ${key}: ${perLoad(ms)} ms, most in ${fn?.[0]}`;
          }),
          `  of which style and layout forced by scripts: ${perLoad(forced)} ms`,
          `  the frames' own style, layout and paint: ${perLoad(rendering)} ms; the rest (scripts of under 5 ms each, such as React's hydration slices; compiling scripts; parsing HTML): ${perLoad(other)} ms`,
        ].join('\n'),
      );

      if (path !== shellAlone && floorGap !== undefined && gap - floorGap > budgets.gapOverFloorMs.goal)
        goals.push(
          `${path}: first paint to hydrated ${Math.round(gap - floorGap)} ms over the floor (goal ${budgets.gapOverFloorMs.goal})`,
        );
      // A timing from one load (budgets mode) is no figure to set a goal against.
      if (!budgetsOnly && path !== shellAlone && longest > budgets.siteFrameMs.goal)
        goals.push(`${path}: a ${Math.round(longest)} ms animation frame of the site's scripts (goal none over 50)`);
      if (path === '/') {
        if (scripts > budgets.homeScriptRequests.max) {
          misses.push(`/: ${scripts} script requests > ${budgets.homeScriptRequests.max}`);
        }
        if (kib > budgets.homeScriptKiB.max) {
          misses.push(`/: ${kib.toFixed(1)} KiB of JavaScript > ${budgets.homeScriptKiB.max} KiB`);
        }
        if (scripts > budgets.homeScriptRequests.goal)
          goals.push(`/: ${scripts} script requests before hydration (goal ${budgets.homeScriptRequests.goal})`);
        if (kib > budgets.homeScriptKiB.goal)
          goals.push(`/: ${kib.toFixed(1)} KiB of JavaScript before hydration (goal ${budgets.homeScriptKiB.goal})`);
      }
    }
    // The same on a slower phone: the CPU slowed 6x, 3 loads of each after one of the floor.
    for (const path of slowerRoutes.filter((candidate) => routes.includes(candidate))) {
      const loads: Load[] = [];
      const floors: Load[] = [];
      for (let run = 0; run < 3; run++) {
        floors.push(await load(browser, `${floorBase}/`, 6));
        loads.push(await load(browser, base + path, 6));
      }
      const at = (of: Load[], figure: (one: Load) => number) => median(of.map(figure));
      slower.push(
        mainThreadRow(
          path,
          at(loads, (one) => one.longestTaskMs),
          at(floors, (one) => one.longestTaskMs),
          at(loads, (one) => one.blockingMs),
          at(floors, (one) => one.blockingMs),
          `${Math.round(at(loads, (one) => one.hydratedMs))} / ${Math.round(at(floors, (one) => one.hydratedMs))}`,
        ),
      );
    }
  } finally {
    await browser.close();
    await floor.close();
    site.kill('SIGTERM');
  }
  console.log(
    `\nOn the line before hydration: KiB of every file asked for before the page hydrated, as sent (compressed; the page itself is the document), median of ${runs}`,
  );
  const lineHeader = `| route                   | ${kinds.map((kind) => kind.padStart(8)).join(' | ')} |    total | with headers |`;
  console.log(lineHeader);
  console.log(lineHeader.replace(/[^|]/g, '-'));
  for (const { path, line, total, wire } of lines) {
    console.log(
      `| ${path.padEnd(23)} | ${kinds.map((kind) => line[kind].toFixed(1).padStart(8)).join(' | ')} | ${total.toFixed(1).padStart(8)} | ${wire.toFixed(1).padStart(12)} |`,
    );
  }
  const mainThreadHeader = '| route                   | longest task ms | floor | blocking ms | floor | difference |';
  console.log(
    `\nThe main thread from first paint to ${watchAfterHydratedMs / 1000} s after hydration (long tasks, Long Tasks API), phone profile, median of ${runs}`,
  );
  console.log(mainThreadHeader);
  console.log(mainThreadHeader.replace(/[^|]/g, '-'));
  console.log(mainThread.join('\n'));
  if (paintReach.length) {
    console.log(
      `\nFirst paint over the floor's, and how far this run's noise reaches (5th-95th percentile of the ratio over 2,000 resamples of the route's loads with their rounds' floor loads); the goal is ${budgets.firstPaintOverFloor.goal}×`,
    );
    const header = '| route                   | × floor | noise reach | the goal is      |';
    console.log(`${header}\n${header.replace(/[^|]/g, '-')}\n${paintReach.join('\n')}`);
  }
  if (blockingReach.length) {
    console.log(
      `\nBlocking time over the floor's, and how far this run's noise reaches (5th-95th percentile of the difference over 2,000 resamples, drawn as above); the goal is within ${budgets.blockingOverFloorMs.goal} ms`,
    );
    const header = '| route                   | difference | noise reach (ms) | the goal is      |';
    console.log(`${header}\n${header.replace(/[^|]/g, '-')}\n${blockingReach.join('\n')}`);
  }
  if (slower.length) {
    console.log('\nThe same with the CPU slowed 6x instead of 4x, median of 3 (printed, not judged)');
    console.log(`${mainThreadHeader} hydrated ms / floor |`);
    console.log(`${mainThreadHeader} ------------------ |`.replace(/[^|]/g, '-'));
    console.log(slower.join('\n'));
  }
  console.log(
    `\nWhere the long animation frames (over 50 ms) go, per load, by build (shell, or the remote's folder) and chunk:\n${attribution.join('\n')}`,
  );
  console.log(
    `\nBudgets (noise margin): first paint to hydrated <= ${budgets.gapMs.max} ms (±${budgets.gapMs.margin}); ` +
      `hydrated <= ${budgets.hydratedOverFloor.home}× the floor's on /, ${budgets.hydratedOverFloor.max}× elsewhere ` +
      `(±${budgets.hydratedOverFloor.margin}); first paint <= ${budgets.firstPaintOverFloor.max}× the floor's ` +
      `(±${budgets.firstPaintOverFloor.margin}); no task over ${budgets.longestTaskMs.max} ms, or the floor's longest, from first paint to ${watchAfterHydratedMs / 1000} s after hydration (±${budgets.longestTaskMs.margin}); on /: <= ${budgets.homeLineKiB.max} KiB on the line before hydration, ` +
      `<= ${budgets.homeScriptRequests.max} script requests, <= ${budgets.homeScriptKiB.max} KiB of compressed JavaScript`,
  );
  if (goals.length) console.log(`Goals not met yet:\n${goals.map((line) => `- ${line}`).join('\n')}`);
  if (timingOver.length) {
    console.log(
      `Reported, not judged (timing in budgets mode, or a goal this host cannot judge):\n${timingOver.map((line) => `- ${line}`).join('\n')}`,
    );
  }
  if (misses.length) {
    console.log(`\n${misses.length} budget(s) missed:\n${misses.map((line) => `MISSED ${line}`).join('\n')}`);
    process.exit(1);
  }
}

await main();

/**
 * From first paint to interactive, on the phone profile (Lighthouse's mobile preset through CDP), beside the floors:
 * every route is loaded RUNS times (5 by default) in a fresh context; on the routes of issue 27's goals (FLOOR_ROUTES,
 * by default `/`, `/vendor`, `/privacy`, `/business`) each load of a route comes right after a load of the React
 * floor (react-floor: an h1 and a button rendered on the server and hydrated, built by the same Vite and
 * served with the same server settings), so that both see the same minute of this shared machine. Per route:
 * the median first contentful paint, the time from it to hydrated (the `hydrated` mark, which both set when their
 * page is hydrated) for the site and the floor and their difference, the longest animation frame whose scripts are
 * the site's own, and the scripts requested before hydration with their compressed bytes. Then where the time of the
 * long animation frames (over 50 ms) goes, by chunk and remote (Long Animation Frames API), so that a reader sees
 * where each millisecond goes. Exits 1 when a budget is missed by more than its noise margin. `ROUTES=/,/vendor`
 * picks routes.
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { startFloor } from 'react-floor/serve';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { examplePagePaths } from '../example-pages.ts';
import { firstContentfulPaint, phonePage, untilHydrated } from '../phone.ts';
import { startSite, timingReportOnly, waitFor } from './site.ts';

const port = Number(process.env.INTERACTIVE_PORT ?? 4340);
const base = `http://127.0.0.1:${port}`;
const floorBase = `http://127.0.0.1:${port + 10}`;
const runs = Number(process.env.RUNS ?? 5);
const only = process.env.ROUTES?.split(',');
/**
 * The shell alone: its own page for an unknown address, which loads no remote. Measured beside the floor too, it is
 * what the shell, its router and the federation host cost before any remote's code; not a goal of its own.
 */
const shellAlone = '/no-such-page';
const routes = [...examplePagePaths, shellAlone].filter((path) => !only || only.includes(path));
/** The routes of issue 27's goals, measured beside the floor (the others alone, to keep CI's run short). */
const floorRoutes = (process.env.FLOOR_ROUTES ?? `/,/vendor,/privacy,/business,${shellAlone}`).split(',');

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
  // Field data (issue 26) loads its one script after hydration, so it is not counted here.
  homeScriptRequests: { max: 17, margin: 0, goal: 12 },
  homeScriptKiB: { max: 136, margin: 0, goal: 100 },
};

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

interface Load {
  fcpMs: number;
  hydratedMs: number;
  /** Scripts requested before the page was hydrated, and their bytes as sent (compressed). */
  scripts: number;
  scriptKiB: number;
  frames: Frame[];
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
}

async function load(browser: Browser, url: string): Promise<Load> {
  const page: Page = await phonePage(browser);
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
    const { hydratedMs, before, frames } = await page.evaluate(() => {
      const hydrated = performance.getEntriesByName('hydrated')[0]?.startTime ?? NaN;
      const scripts = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter(
        (entry) => /\.m?js(\?|$)/.test(entry.name) && entry.startTime < hydrated,
      );
      return {
        hydratedMs: hydrated,
        before: scripts.map((entry) => entry.name),
        frames: (window as unknown as { longFrames: Frame[] }).longFrames,
      };
    });
    const bytes = before.reduce((total, name) => total + (sent.get(name) ?? 0), 0);
    return { fcpMs, hydratedMs, scripts: before.length, scriptKiB: bytes / 1024, frames };
  } finally {
    await page.context().close();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

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
  try {
    await waitFor(`${base}/remotes.json`);
    console.log(
      `\nFirst paint to interactive, phone profile (4x CPU, 150 ms, 1.6 Mbit/s), median of ${runs}, on ${floorRoutes.join(', ')} each load after one of the React floor, ${new Date().toISOString()}`,
    );
    // One load of each first, unmeasured: the servers' first responses (reading builds, compressing) are not a visitor's.
    await load(browser, `${floorBase}/`);
    await load(browser, base + (routes[0] ?? '/'));
    const header =
      '| route                   | FCP ms | hydrated ms | FCP→hydrated | floor | difference | longest site frame ms | scripts | JS KiB |';
    console.log(header);
    console.log(header.replace(/[^|]/g, '-'));
    for (const path of routes) {
      const loads: Load[] = [];
      const floors: Load[] = [];
      const measure = async () => {
        for (let run = 0; run < runs; run++) {
          if (floorRoutes.includes(path)) floors.push(await load(browser, `${floorBase}/`));
          loads.push(await load(browser, base + path));
        }
      };
      await measure();
      const gapOf = (of: Load[]) => median(of.map((one) => one.hydratedMs - one.fcpMs));
      // As in perf.ts: a median can catch a busy moment of this shared machine, so a route that misses is measured
      // again, twice at most, the new loads joining the earlier ones.
      const gapMissed = () => !timingReportOnly && gapOf(loads) > budgets.gapMs.max + budgets.gapMs.margin;
      for (let again = 0; again < 2 && gapMissed(); again++) {
        console.log(`| ${`${path} (missed, measuring again)`.padEnd(23)} | gap ${Math.round(gapOf(loads))} ms |`);
        await measure();
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
      const cells = [
        (path === shellAlone ? `${path} (shell)` : path).padEnd(23),
        String(Math.round(median(loads.map((one) => one.fcpMs)))).padStart(6),
        String(Math.round(median(loads.map((one) => one.hydratedMs)))).padStart(11),
        String(Math.round(gap)).padStart(12),
        (floorGap === undefined ? '-' : String(Math.round(floorGap))).padStart(5),
        (floorGap === undefined ? '-' : `+${Math.round(gap - floorGap)}`).padStart(10),
        String(Math.round(longest)).padStart(21),
        String(scripts).padStart(7),
        kib.toFixed(1).padStart(6),
      ];
      console.log(`| ${cells.join(' | ')} |`);

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

      if (gap > budgets.gapMs.max + budgets.gapMs.margin) {
        (timingReportOnly ? timingOver : misses).push(
          `${path}: first paint to hydrated ${Math.round(gap)} ms > ${budgets.gapMs.max} ms`,
        );
      }
      if (path !== shellAlone && floorGap !== undefined && gap - floorGap > budgets.gapOverFloorMs.goal)
        goals.push(
          `${path}: first paint to hydrated ${Math.round(gap - floorGap)} ms over the floor (goal ${budgets.gapOverFloorMs.goal})`,
        );
      if (path !== shellAlone && longest > budgets.siteFrameMs.goal)
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
  } finally {
    await browser.close();
    await floor.close();
    site.kill('SIGTERM');
  }
  console.log(
    `\nWhere the long animation frames (over 50 ms) go, per load, by build (shell, or the remote's folder) and chunk:\n${attribution.join('\n')}`,
  );
  console.log(
    `\nBudgets (noise margin): first paint to hydrated <= ${budgets.gapMs.max} ms (±${budgets.gapMs.margin}); on /: <= ${budgets.homeScriptRequests.max} script requests, <= ${budgets.homeScriptKiB.max} KiB of compressed JavaScript before hydration`,
  );
  if (goals.length) console.log(`Goals not met yet:\n${goals.map((line) => `- ${line}`).join('\n')}`);
  if (timingOver.length) {
    console.log(
      `Timing over budget on this host (reported, not failed: PERF_TIMING=report):\n${timingOver.map((line) => `- ${line}`).join('\n')}`,
    );
  }
  if (misses.length) {
    console.log(`\n${misses.length} budget(s) missed:\n${misses.map((line) => `- ${line}`).join('\n')}`);
    process.exit(1);
  }
}

await main();

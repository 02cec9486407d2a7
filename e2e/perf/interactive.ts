/**
 * From first paint to interactive, on the phone profile (Lighthouse's mobile preset through CDP): every route is
 * loaded RUNS times (5 by default) in a fresh context; per route the median first contentful paint, the median
 * time the page hydrated (the shell's `hydrated` mark), the gap between them, and the scripts the page requested
 * before any interaction (until the network was quiet for half a second after hydration) with their compressed bytes. Exits 1 when a
 * median misses its budget by more than the noise margin. `ROUTES=/,/vendor` picks routes.
 */
import { chromium, type Browser, type Request } from '@playwright/test';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { examplePagePaths } from '../example-pages.ts';
import { firstContentfulPaint, phonePage, untilHydrated } from '../phone.ts';
import { startSite, timingReportOnly, waitFor } from './site.ts';

const port = Number(process.env.INTERACTIVE_PORT ?? 4340);
const base = `http://127.0.0.1:${port}`;
const runs = Number(process.env.RUNS ?? 5);
const only = process.env.ROUTES?.split(',');
const routes = examplePagePaths.filter((path) => !only || only.includes(path));

/**
 * Budgets, and how far a median may miss one before the run fails (run-to-run noise here). Each `max` keeps what
 * has been reached from getting worse; `goal` is issue 15's, printed while it is not met.
 */
export const budgets = {
  gapMs: { max: 1500, margin: 150, goal: 1000 },
  // Field data (issue 26) adds one script, loaded when the page is idle, and at most 3 KiB in all.
  homeScriptRequests: { max: 18, margin: 0, goal: 12 },
  homeScriptKiB: { max: 138, margin: 0, goal: 120 },
};

interface Load {
  fcpMs: number;
  hydratedMs: number;
  scripts: number;
  scriptKiB: number;
}

async function load(browser: Browser, path: string): Promise<Load> {
  const page = await phonePage(browser);
  const scripts: Request[] = [];
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script') scripts.push(request);
  });
  try {
    await page.goto(base + path, { waitUntil: 'commit' });
    const fcpMs = await firstContentfulPaint(page);
    await untilHydrated(page);
    const hydratedMs = await page.evaluate(() => performance.getEntriesByName('hydrated')[0]?.startTime ?? NaN);
    // What the page fetches by itself once hydrated (code that waits for idle time or for the first frame).
    await page.waitForLoadState('networkidle');
    const sizes = await Promise.all(scripts.map(async (request) => (await request.sizes()).responseBodySize));
    const scriptKiB = sizes.reduce((total, size) => total + size, 0) / 1024;
    return { fcpMs, hydratedMs, scripts: scripts.length, scriptKiB };
  } finally {
    await page.context().close();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main() {
  const site = startSite(port);
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const misses: string[] = [];
  const goals: string[] = [];
  const timingOver: string[] = [];
  try {
    await waitFor(`${base}/remotes.json`);
    console.log(
      `\nFirst paint to interactive, phone profile (4x CPU, 150 ms, 1.6 Mbit/s), median of ${runs}, ${new Date().toISOString()}`,
    );
    console.log('| route                                 | FCP ms | hydrated ms | gap ms | scripts | JS KiB |');
    // One load first, unmeasured: the server's first responses (reading builds, compressing) are not a visitor's.
    await load(browser, routes[0] ?? '/');
    console.log('| ------------------------------------- | ------ | ----------- | ------ | ------- | ------ |');
    const measure = async (path: string) => {
      const loads: Load[] = [];
      for (let run = 0; run < runs; run++) loads.push(await load(browser, path));
      return loads;
    };
    const gapOf = (loads: Load[]) => median(loads.map((one) => one.hydratedMs - one.fcpMs));
    for (const path of routes) {
      const loads = await measure(path);
      // As in perf.ts: a median can catch a busy moment of this shared machine (the same build's gap on a route
      // ranges over 300 ms between runs), so a route that misses is measured again, twice at most, the new loads
      // joining the earlier ones.
      const gapMissed = () => !timingReportOnly && gapOf(loads) > budgets.gapMs.max + budgets.gapMs.margin;
      for (let again = 0; again < 2 && gapMissed(); again++) {
        console.log(`| ${`${path} (missed, measuring again)`.padEnd(37)} | gap ${Math.round(gapOf(loads))} ms |`);
        loads.push(...(await measure(path)));
      }
      const fcp = median(loads.map((one) => one.fcpMs));
      const hydrated = median(loads.map((one) => one.hydratedMs));
      const gap = gapOf(loads);
      const scripts = median(loads.map((one) => one.scripts));
      const kib = median(loads.map((one) => one.scriptKiB));
      console.log(
        `| ${path.padEnd(37)} | ${Math.round(fcp).toString().padStart(6)} | ${Math.round(hydrated).toString().padStart(11)} | ${Math.round(gap).toString().padStart(6)} | ${String(scripts).padStart(7)} | ${kib.toFixed(1).padStart(6)} |`,
      );
      if (gap > budgets.gapMs.max + budgets.gapMs.margin) {
        (timingReportOnly ? timingOver : misses).push(
          `${path}: first paint to hydrated ${Math.round(gap)} ms > ${budgets.gapMs.max} ms`,
        );
      }
      if (gap > budgets.gapMs.goal)
        goals.push(`${path}: first paint to hydrated ${Math.round(gap)} ms (goal ${budgets.gapMs.goal})`);
      if (path === '/') {
        if (scripts > budgets.homeScriptRequests.max) {
          misses.push(`/: ${scripts} script requests > ${budgets.homeScriptRequests.max}`);
        }
        if (kib > budgets.homeScriptKiB.max) {
          misses.push(`/: ${kib.toFixed(1)} KiB of JavaScript > ${budgets.homeScriptKiB.max} KiB`);
        }
        if (scripts > budgets.homeScriptRequests.goal)
          goals.push(`/: ${scripts} script requests (goal ${budgets.homeScriptRequests.goal})`);
        if (kib > budgets.homeScriptKiB.goal)
          goals.push(`/: ${kib.toFixed(1)} KiB of JavaScript (goal ${budgets.homeScriptKiB.goal})`);
      }
    }
  } finally {
    await browser.close();
    site.kill('SIGTERM');
  }
  console.log(
    `Budgets (noise margin): first paint to hydrated <= ${budgets.gapMs.max} ms (±${budgets.gapMs.margin}); on /: <= ${budgets.homeScriptRequests.max} script requests, <= ${budgets.homeScriptKiB.max} KiB of compressed JavaScript`,
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

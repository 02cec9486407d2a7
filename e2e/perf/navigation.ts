/**
 * `pnpm bench navigation`: a visitor's first client-side visit from `/` to the vendor, business and privacy pages on
 * the phone profile (issue 79): from the click to the next page's heading on the screen, the median of NAV_RUNS
 * visits (5), each from a fresh load of `/` in a fresh context (the next page's files not asked for yet).
 * - `read first`: the visitor reads `/` for NAV_READ_MS (2 s) after it hydrated, then clicks (the pointer reaches
 *   the link as it clicks: its hover starts the prefetch a few milliseconds before).
 * - `at once`: clicks as soon as `/` has hydrated, before the page is idle (the federation runtime, which the page
 *   starts when idle, may not be there yet).
 * - `hover`: reads as above, rests the pointer on the link for NAV_HOVER_MS (300 ms), then clicks: the page must be
 *   on the screen within 300 ms of the click (the goal).
 * With NAV_BEFORE_ROOT (another checkout of the site, built), the same visits on its build, alternating with this
 * one's in the same run: "no later than before" is judged as the two medians side by side.
 */
import { chromium, type Browser } from '@playwright/test';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { phonePage, untilHydrated } from '../phone.ts';
import { startSite, timingReportOnly, waitFor } from './site.ts';
import { median } from './stats.ts';

const runs = Number(process.env.NAV_RUNS ?? 5);
const readMs = Number(process.env.NAV_READ_MS ?? 2000);
const hoverMs = Number(process.env.NAV_HOVER_MS ?? 300);
const goalMs = 300;
const visits = [
  ['/vendor', 'main a[href="/vendor"]'],
  ['/business', 'main a[href="/business"]'],
  ['/privacy', 'footer a[href="/privacy"]'],
] as const;
const ways = ['read first', 'at once', 'hover'] as const;
type Way = (typeof ways)[number];

/** Milliseconds from the click to the next page's heading, as the page's own clock has them. */
async function visit(browser: Browser, base: string, path: string, link: string, way: Way) {
  const page = await phonePage(browser);
  try {
    await page.goto(`${base}/`);
    await untilHydrated(page);
    if (way !== 'at once') await page.waitForTimeout(readMs);
    await page.evaluate((selector) => {
      const before = document.querySelector('main h1')?.textContent;
      addEventListener('click', () => ((window as unknown as { clickedAt: number }).clickedAt = performance.now()), {
        capture: true,
        once: true,
      });
      new MutationObserver((_records, observer) => {
        if (document.querySelector('main h1')?.textContent !== before) {
          (window as unknown as { shownAt: number }).shownAt = performance.now();
          observer.disconnect();
        }
      }).observe(document.querySelector('main')!, { childList: true, subtree: true, characterData: true });
      document.querySelector(selector)!.scrollIntoView({ block: 'center' });
    }, link);
    if (way === 'hover') {
      await page.hover(link);
      await page.waitForTimeout(hoverMs);
    }
    await page.click(link, { noWaitAfter: true });
    await page.waitForFunction(
      (want) => (window as unknown as { shownAt?: number }).shownAt !== undefined && location.pathname === want,
      path,
      { timeout: 30_000 },
    );
    return await page.evaluate(() => {
      const times = window as unknown as { shownAt: number; clickedAt: number };
      return times.shownAt - times.clickedAt;
    });
  } finally {
    await page.context().close();
  }
}

const sites = [{ name: 'this build', root: undefined, port: 4397 }];
if (process.env.NAV_BEFORE_ROOT) sites.push({ name: 'before', root: process.env.NAV_BEFORE_ROOT, port: 4398 } as never);
const servers = sites.map(({ root, port }) => startSite(port, {}, root));
const missed: string[] = [];
try {
  for (const { port } of sites) await waitFor(`http://127.0.0.1:${port}/remotes.json`);
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const times = new Map<string, number[]>();
  for (let run = 0; run < runs; run++) {
    for (const [path, link] of visits) {
      for (const way of ways) {
        // Alternating: each visit on this build, then the same on the build before it.
        for (const { name, port } of sites) {
          const key = `${name}\n${path}\n${way}`;
          times.set(key, [
            ...(times.get(key) ?? []),
            await visit(browser, `http://127.0.0.1:${port}`, path, link, way),
          ]);
        }
      }
    }
  }
  await browser.close();
  console.log(
    `\nFirst client-side visit from /, phone profile (4x CPU, 150 ms, 1.6 Mbit/s): click to heading, median of ${runs}` +
      ` (read ${readMs} ms first; hover ${hoverMs} ms before the click)`,
  );
  console.log(`| visit      | way        | ${sites.map(({ name }) => `${name} ms`.padStart(14)).join(' | ')} |`);
  console.log(`|------------|------------|${sites.map(() => '----------------').join('|')}|`);
  for (const [path] of visits) {
    for (const way of ways) {
      const medians = sites.map(({ name }) => median(times.get(`${name}\n${path}\n${way}`)!));
      console.log(
        `| ${path.padEnd(10)} | ${way.padEnd(10)} | ${medians.map((ms) => String(Math.round(ms)).padStart(14)).join(' | ')} |`,
      );
      if (way === 'hover' && medians[0]! > goalMs)
        missed.push(`${path} after a hover: ${Math.round(medians[0]!)} ms > ${goalMs} ms`);
      if (medians.length > 1 && medians[0]! > medians[1]! * 1.1 + 30)
        missed.push(
          `${path} (${way}): ${Math.round(medians[0]!)} ms, later than before (${Math.round(medians[1]!)} ms)`,
        );
    }
  }
} finally {
  for (const server of servers) server.kill();
}
for (const miss of missed) console.log(`MISSED ${miss}`);
if (missed.length && !timingReportOnly) process.exitCode = 1;

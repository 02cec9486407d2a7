/**
 * `pnpm --filter e2e perf:waterfall`: where a page's bytes and requests sit in time on the phone profile, as the
 * browser saw them (Resource Timing): when each file was asked for, when its request could start (HTTP/1.1 gives
 * six connections to an origin: the rest wait), its first byte and its last, and its compressed size; then first
 * paint and hydration. ROUTES picks the pages (`/` by default); the production build is served as `pnpm start`
 * serves it. A reading aid for issue 27, not a budget.
 */
import { chromium } from '@playwright/test';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { firstContentfulPaint, phonePage, untilHydrated } from '../phone.ts';
import { startSite, waitFor } from './site.ts';

const port = Number(process.env.WATERFALL_PORT ?? 4331);
const routes = (process.env.ROUTES ?? '/').split(',');
const base = `http://127.0.0.1:${port}`;

const site = startSite(port);
try {
  await waitFor(`${base}/remotes.json`);
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  for (const path of routes) {
    const page = await phonePage(browser);
    await page.goto(`${base}${path}`);
    const fcp = await firstContentfulPaint(page);
    await untilHydrated(page);
    const hydrated = await page.evaluate(() => performance.getEntriesByName('hydrated')[0]?.startTime ?? NaN);
    const files = await page.evaluate(() =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((entry) => ({
        name: entry.name.replace(location.origin, ''),
        asked: entry.startTime,
        started: entry.requestStart,
        first: entry.responseStart,
        last: entry.responseEnd,
        kib: entry.encodedBodySize / 1024,
      })),
    );
    const before = files.filter((file) => file.asked < hydrated);
    const scripts = before.filter((file) => /\.m?js(\?|$)/.test(file.name));
    const kib = (list: typeof files) => list.reduce((sum, file) => sum + file.kib, 0).toFixed(1);
    console.log(
      `\n${path}: first paint ${Math.round(fcp)} ms, hydrated ${Math.round(hydrated)} ms; before hydration ` +
        `${before.length} files, ${kib(before)} KiB (scripts: ${scripts.length}, ${kib(scripts)} KiB), phone profile`,
    );
    console.log('| asked ms | request ms | first byte ms | last byte ms |    KiB | file');
    console.log('| -------: | ---------: | ------------: | -----------: | -----: | ----');
    for (const file of before.sort((a, b) => a.asked - b.asked || a.started - b.started)) {
      const ms = (value: number) => String(Math.round(value));
      console.log(
        `| ${ms(file.asked).padStart(8)} | ${ms(file.started).padStart(10)} | ${ms(file.first).padStart(13)} | ` +
          `${ms(file.last).padStart(12)} | ${file.kib.toFixed(1).padStart(6)} | ${file.name.slice(0, 90)}`,
      );
    }
    await page.context().close();
  }
  await browser.close();
} finally {
  site.kill('SIGTERM');
}

import { chromium } from '@playwright/test';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { openEngine, type EnginePage } from '../engines/engines.ts';
import { startSite, waitFor } from './site.ts';
import { median } from './stats.ts';

/**
 * `pnpm bench engines`: how long a client-side visit takes in each engine, at 1280 px on this machine (no throttling):
 * from the click on a link of `/` to the next page's title on the screen, for the vendor and business pages (their
 * remotes loaded on the visit) and the privacy page. Each the median of ENGINE_NAV_RUNS visits (5), each from a fresh
 * load of `/` (its files in the cache, the next page's not yet asked for). Printed, not judged: the engines differ
 * in what they are, not in what this site does.
 */
const port = 4396;
const site = `http://127.0.0.1:${port}`;
const runs = Number(process.env.ENGINE_NAV_RUNS ?? 5);
const visits = [
  ['/vendor', 'main a[href="/vendor"]'],
  ['/business', 'main a[href="/business"]'],
  ['/privacy', 'footer a[href="/privacy"]'],
] as const;

/** Chromium through Playwright, as an EnginePage: the part the bench needs. */
async function chromiumPage(): Promise<EnginePage> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  // Its waitForFunction evaluates a string, which the site's policy forbids: lifted for the bench's own scripts.
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  return {
    engine: 'chromium',
    setSize: (width, height) => page.setViewportSize({ width, height }),
    goto: async (url) => void (await page.goto(url)),
    evaluate: (expression) => page.evaluate(expression),
    waitFor: async (expression) => void (await page.waitForFunction(expression, undefined, { timeout: 30_000 })),
    click: (selector) => page.click(selector),
    type: (selector, text) => page.type(selector, text),
    screenshot: () => page.screenshot(),
    close: () => browser.close(),
  };
}

/** Milliseconds from the click to the next page's title, as the page's own clock has them. */
async function visit(page: EnginePage, path: string, link: string) {
  await page.goto(`${site}/`);
  await page.waitFor(`document.documentElement.dataset.ready === 'true'`, '/ ready', 30_000);
  await page.evaluate(`(() => {
    const before = document.querySelector('main h1').textContent;
    addEventListener('click', () => (window.clickedAt = performance.now()), { capture: true, once: true });
    new MutationObserver((records, observer) => {
      if (document.querySelector('main h1')?.textContent !== before) {
        window.shownAt = performance.now();
        observer.disconnect();
      }
    }).observe(document.querySelector('main'), { childList: true, subtree: true, characterData: true });
    document.querySelector('${link}').scrollIntoView({ block: 'center' });
    return true;
  })()`);
  await page.click(link);
  await page.waitFor(`window.shownAt !== undefined && location.pathname === '${path}'`, path, 30_000);
  return page.evaluate<number>('window.shownAt - window.clickedAt');
}

const server = startSite(port);
const rows: string[][] = [['engine', ...visits.map(([path]) => `/ -> ${path}`)]];
try {
  await waitFor(`${site}/remotes.json`);
  for (const open of [chromiumPage, () => openEngine('firefox'), () => openEngine('webkit')]) {
    const page = await open();
    const name = page.engine;
    try {
      await page.setSize(1280, 800);
      const row: string[] = [name];
      for (const [path, link] of visits) {
        const times: number[] = [];
        for (let run = 0; run < runs; run++) times.push(await visit(page, path, link));
        row.push(`${Math.round(median(times))} ms`);
      }
      rows.push(row);
      console.log(`${name}: ${row.slice(1).join(', ')}`);
    } finally {
      await page.close();
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  console.log(`\nClient-side visits at 1280 px, median of ${runs}, from the click to the next page's title on screen:`);
  for (const row of rows) console.log(`  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`);
} finally {
  server.kill();
}

import type { Page } from '@playwright/test';
import { expect, test } from './support.ts';

/**
 * The brand's typeface is the site's own file. A new visitor's first page is set in a local font scaled to its
 * metrics and becomes interactive before the file is asked for (a slow phone's line carries what hydration needs
 * first); that page keeps the local font, so nothing moves, and the next page opened uses the brand font. A page
 * loaded later takes the file from the browser's cache and uses it from its start. Without scripts it is used at once.
 */

/** The font files this document fetched: when each was asked for, and the bytes that came over the network. */
const fontLoads = (page: Page) =>
  page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => entry.name.endsWith('.woff2'))
      .map((entry) => ({
        path: new URL(entry.name).pathname,
        transferSize: entry.transferSize,
        askedBeforeHydration: entry.startTime < (performance.getEntriesByName('hydrated')[0]?.startTime ?? Infinity),
      })),
  );

const brandFontLoaded = (page: Page) =>
  page.waitForFunction(() =>
    [...document.fonts].some((font) => font.family === 'Inter Variable' && font.status === 'loaded'),
  );

/** The brand font's file has come and is remembered for the next pages (the shell loads it as a face of its own). */
const brandFontFetched = (page: Page) => page.waitForFunction(() => localStorage.getItem('brand-font') === '1');

const fontOf = (page: Page, name: string) =>
  page.getByRole('heading', { level: 1, name }).evaluate((element) => getComputedStyle(element).fontFamily);

test('a new visitor’s page is interactive before the font is asked for, keeps its font, and the next page has it', async ({
  page,
}) => {
  const asked: string[] = [];
  await page.route('**/*.woff2', async (route) => {
    asked.push(new URL(route.request().url()).pathname);
    await route.continue();
  });
  // Layout shifts from the first moment, kept for the test to read.
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { shifts: number[] }).shifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) shifts.push(entry.value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  await page.goto('/privacy');
  expect(await page.locator('link[rel="preload"][as="font"]').count()).toBe(0);
  // Interactive (goto waited for it): the file is asked for now, once, and the page stays as it was painted.
  await brandFontFetched(page);
  expect(asked).toEqual([expect.stringMatching(/^\/assets\/inter-latin-wght-normal-[\w-]+\.woff2$/)]);
  expect(await fontLoads(page)).toEqual([
    { path: asked[0], transferSize: expect.any(Number), askedBeforeHydration: false },
  ]);
  expect(await fontOf(page, 'Privacy Policy')).toMatch(/^"Inter fallback"/);
  expect(await page.evaluate(() => (window as unknown as { shifts: number[] }).shifts)).toEqual([]);

  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect.poll(() => fontOf(page, 'Terms & Conditions')).toMatch(/^"Inter Variable"/);
  expect(asked).toHaveLength(1);
});

test('a page loaded later uses the font from its start, from the browser’s cache', async ({ page }) => {
  await page.goto('/privacy');
  await brandFontFetched(page);
  await page.goto('/vendor', { waitUntil: 'commit' });
  // Before the page's scripts run: the head's first script has set it, from what the last page left.
  await expect(page.locator('html[data-font]')).toBeAttached();
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
  await brandFontLoaded(page);
  const [load, ...more] = await fontLoads(page);
  expect(more).toEqual([]);
  expect(load!.askedBeforeHydration, 'asked for as the page started').toBe(true);
  expect(load!.transferSize, 'bytes over the network for the font on the second page').toBe(0);
});

test('without scripts the page is set in the brand font', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/privacy', { waitUntil: 'load' });
  await expect.poll(() => fontOf(page, 'Privacy Policy')).toMatch(/^"Inter Variable"/);
  await context.close();
});

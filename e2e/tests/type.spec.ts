import type { Page } from '@playwright/test';
import { layoutShiftsOf, watchLayoutShifts } from '../layout-shifts.ts';
import { firstContentfulPaint, phonePage } from '../phone.ts';
import { expect, test } from './support.ts';

/**
 * The brand's typeface is the site's own two files. The headings' face (Inter at 700, 8 KiB) is preloaded by every
 * page, so that a first visit's headings are the brand's from the first paint. The body of a new visitor's first page
 * is set in a local font scaled to Inter's metrics and becomes interactive before the whole family is asked for (a
 * slow phone's line carries what hydration needs first); that page keeps the local font for its body, so nothing
 * moves, and the next page opened uses the brand font. A page loaded later takes the file from the browser's cache
 * and uses it from its start. Without scripts it is used at once.
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
const bodyFontOf = (page: Page) => page.evaluate(() => getComputedStyle(document.body).fontFamily);

const headingsFace = /^\/assets\/inter-headings-700-[\w-]+\.woff2$/;
const wholeFamily = /^\/assets\/inter-latin-wght-normal-[\w-]+\.woff2$/;

/** The faces the browser drew an element's text with, as Chromium's DevTools name them. */
async function platformFontsOf(page: Page, selector: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
  const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
  await cdp.detach();
  return fonts.map((font) => font.familyName);
}

test('a new visitor’s page is interactive before the font is asked for, keeps its font, and the next page has it', async ({
  page,
}) => {
  const asked: string[] = [];
  await page.route('**/*.woff2', async (route) => {
    asked.push(new URL(route.request().url()).pathname);
    await route.continue();
  });
  // Layout shifts from the first moment, kept for the test to read.
  await page.addInitScript(watchLayoutShifts);
  await page.goto('/privacy');
  // One font preloaded: the headings' face. The whole family is asked for once the page is interactive (goto waited
  // for it), once, and the page's body stays in the font it was painted in.
  expect(await page.locator('link[rel="preload"][as="font"]').count()).toBe(1);
  await brandFontFetched(page);
  expect(asked).toEqual([expect.stringMatching(headingsFace), expect.stringMatching(wholeFamily)]);
  expect(await fontLoads(page)).toEqual([
    { path: asked[0], transferSize: expect.any(Number), askedBeforeHydration: true },
    { path: asked[1], transferSize: expect.any(Number), askedBeforeHydration: false },
  ]);
  expect(await fontOf(page, 'Privacy Policy')).toMatch(/^"Inter Headings"/);
  expect(await bodyFontOf(page)).toMatch(/^"Inter fallback"/);
  expect(await layoutShiftsOf(page)).toEqual([]);

  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
  await expect.poll(() => bodyFontOf(page)).toMatch(/^"Inter Variable"/);
  expect(asked).toHaveLength(2);
});

test('a page loaded later uses the font from its start, from the browser’s cache', async ({ page }) => {
  await page.goto('/privacy');
  await brandFontFetched(page);
  await page.goto('/vendor', { waitUntil: 'commit' });
  // Before the page's scripts run: the head's first script has set it, from what the last page left.
  await expect(page.locator('html[data-font]')).toBeAttached();
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
  await brandFontLoaded(page);
  const [load, ...more] = (await fontLoads(page)).filter((font) => wholeFamily.test(font.path));
  expect(more).toEqual([]);
  expect(load!.askedBeforeHydration, 'asked for as the page started').toBe(true);
  expect(load!.transferSize, 'bytes over the network for the font on the second page').toBe(0);
});

test('without scripts the page is set in the brand font', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/privacy', { waitUntil: 'load' });
  await expect.poll(() => bodyFontOf(page)).toMatch(/^"Inter Variable"/);
  await context.close();
});

for (const path of ['/', '/vendor', '/business']) {
  test(`a first visit to ${path} on a phone draws its h1 in Inter and no other face, and nothing moves`, async ({
    browser,
  }) => {
    const page = await phonePage(browser);
    await page.addInitScript(watchLayoutShifts);
    await page.goto(path, { waitUntil: 'commit' });
    const paint = await firstContentfulPaint(page);
    // The headings' face is `font-display: block`: the h1 waits for it, for 3 s at most, rather than show in another
    // face. In within that, the h1 was never drawn in another (on a quiet machine it is in before the first paint).
    const faceEnd = await page
      .waitForFunction(
        () =>
          (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((entry) =>
            entry.name.includes('/inter-headings-700-'),
          )?.responseEnd,
        undefined,
        { polling: 16, timeout: 30_000 },
      )
      .then((handle) => handle.jsonValue() as Promise<number>);
    expect(faceEnd, `the headings' face in within its block period (first paint at ${paint} ms)`).toBeLessThan(3000);
    await expect.poll(() => platformFontsOf(page, 'h1')).toEqual(['Inter']);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    await brandFontFetched(page);
    await page.waitForTimeout(500);
    expect(await platformFontsOf(page, 'h1')).toEqual(['Inter']);
    expect(await layoutShiftsOf(page)).toEqual([]);
    await page.context().close();
  });
}

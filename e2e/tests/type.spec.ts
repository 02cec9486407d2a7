import type { Page } from '@playwright/test';
import { expect, test } from './support.ts';

/**
 * The brand's typeface is the site's own file, preloaded by the page, fetched once, and the text set before it
 * arrives (in a local font scaled to its metrics) takes the same room, so the swap moves nothing.
 */

/** The font files this document fetched, with the bytes that came over the network (0 from the browser's cache). */
const fontLoads = (page: Page) =>
  page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => entry.name.endsWith('.woff2'))
      .map((entry) => ({ path: new URL(entry.name).pathname, transferSize: entry.transferSize })),
  );

test('the font is preloaded, fetched once, and the heading does not move when it arrives', async ({ page }) => {
  let release = () => {};
  const arrived = new Promise<void>((resolve) => (release = resolve));
  // Held back until the heading has been measured in the fallback: a slow phone's first paint.
  await page.route('**/*.woff2', async (route) => {
    await arrived;
    await route.continue();
  });
  await page.goto('/privacy', { waitUntil: 'commit' });
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toBeVisible();
  const preloaded = await page.locator('link[rel="preload"][as="font"]').getAttribute('href');
  expect(preloaded).toMatch(/^\/assets\/inter-latin-wght-normal-[\w-]+\.woff2$/);
  expect(await page.evaluate(() => document.fonts.check('700 40px "Inter Variable"'))).toBe(false);
  const before = await heading.boundingBox();

  release();
  await page.waitForFunction(() =>
    [...document.fonts].some((font) => font.family === 'Inter Variable' && font.status === 'loaded'),
  );
  const after = await heading.boundingBox();
  expect(after!.y).toBeCloseTo(before!.y, 0);
  expect(after!.x).toBeCloseTo(before!.x, 0);
  expect(after!.height).toBeCloseTo(before!.height, 0);
  expect(Math.abs(after!.width - before!.width) / before!.width).toBeLessThan(0.02);
  expect(await heading.evaluate((element) => getComputedStyle(element).fontFamily)).toMatch(/^"Inter Variable"/);
  // The preload and the stylesheet's use of it are one fetch.
  expect((await fontLoads(page)).map((load) => load.path)).toEqual([preloaded]);
});

test('the next page takes the font from the browser’s cache', async ({ page }) => {
  await page.goto('/privacy');
  await page.evaluate(() => document.fonts.ready);
  expect(await fontLoads(page)).toEqual([
    { path: expect.stringMatching(/\.woff2$/), transferSize: expect.any(Number) },
  ]);
  await page.goto('/vendor');
  await page.evaluate(() => document.fonts.ready);
  const [load, ...more] = await fontLoads(page);
  expect(more).toEqual([]);
  expect(load!.transferSize, 'bytes over the network for the font on the second page').toBe(0);
});

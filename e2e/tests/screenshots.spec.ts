import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from '@playwright/test';
import { measureTheCarousel } from '../carousel.ts';
import { examplePagePaths } from '../example-pages.ts';
import { holdScripts, isHydrated, untilHydrated } from '../phone.ts';
import { baseURL } from '../playwright.config.ts';
import { expect, test } from './support.ts';

/**
 * Pixels under test: every route at a phone's and a laptop's width in the light and the dark theme, and every email,
 * compared with the committed baselines in `__screenshots__`. Motion is paused (reduced motion, CSS animations finished) and the brand font is
 * loaded and used, so what differs is what a release changed. To accept a change on purpose, see docs/testing.md.
 */
const widths = [375, 1280];

/**
 * Lets every part that comes into view run its entrance, then goes back up the same way, a rendered frame at each
 * step: the parts that follow the scroll (the chosen feature, the highlighted step) end as the top of the page leaves
 * them, however busy the machine (with fixed waits, a step could pass without a frame and leave another one chosen).
 */
async function revealEverything(page: Page) {
  await page.evaluate(async () => {
    const frame = () =>
      new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50))));
    const height = document.documentElement.scrollHeight;
    const step = window.innerHeight / 2;
    for (let y = 0; y < height; y += step) {
      window.scrollTo({ top: y, behavior: 'instant' });
      await frame();
    }
    for (let y = height; y > 0; y -= step) {
      window.scrollTo({ top: y, behavior: 'instant' });
      await frame();
    }
    window.scrollTo({ top: 0, behavior: 'instant' });
    await frame();
  });
  // As every page after a visitor's first shows it: in the brand font (type.spec.ts checks the first page, which
  // keeps the local font it was painted in).
  await page.evaluate(async () => {
    await document.fonts.load('1em "Inter Variable"');
    document.documentElement.dataset.font = '';
  });
  await page.evaluate(() => document.fonts.ready);
}

/**
 * The scroll-lock demo locks the page while its middle section is half in view, and a full-page capture brings it
 * all in view: the lock (and the scrollbar gutter it keeps) would come and go between captures as the machine's
 * speed decides. Read to the card's end, as a visitor does, the page stays free whatever is in view.
 */
async function readTheCardToItsEnd(page: Page) {
  await page.getByRole('region', { name: 'Story card' }).evaluate((card) => card.scrollTo({ top: card.scrollHeight }));
  await expect(page.getByRole('status').filter({ hasText: 'Page scrolling' })).toHaveText('Page scrolling is free');
}

const nameOf = (path: string) => (path === '/' ? 'home' : path.slice(1).replaceAll('/', '-').replace(/_.*/, ''));

for (const width of widths) {
  for (const scheme of ['light', 'dark'] as const) {
    test.describe(`at ${width} px, ${scheme}`, () => {
      test.use({ viewport: { width, height: 800 }, reducedMotion: 'reduce', colorScheme: scheme });
      // A full page at 1280 px is taken twice and compared: seconds each on a busy 2-core machine.
      test.describe.configure({ timeout: 60_000 });

      for (const path of [...examplePagePaths, '/no-such-page']) {
        test(`${path} looks as it did`, async ({ page }) => {
          await page.goto(path);
          await revealEverything(page);
          if (path === '/test') await readTheCardToItsEnd(page);
          await expect(page).toHaveScreenshot(`${nameOf(path)}-${width}${scheme === 'dark' ? '-dark' : ''}.png`, {
            fullPage: true,
            animations: 'disabled',
            caret: 'hide',
            // Identical run to run here; one character more in a heading differs by 1,700 pixels or more.
            maxDiffPixels: 150,
            timeout: 20_000,
          });
        });
      }
    });
  }
}

/**
 * `/` on a tablet and a wide screen, as first painted (its scripts held back) and once hydrated: the two look alike,
 * the carousel's screens in the same places (carousel-first-paint.spec.ts measures them).
 */
for (const width of [768, 1920]) {
  test.describe(`/ at ${width} px`, () => {
    const open = async (browser: Browser, scripts: 'held' | 'run') => {
      const page = await browser.newPage({ viewport: { width, height: 900 }, reducedMotion: 'reduce' });
      const release = await holdScripts(page);
      if (scripts === 'run') release();
      await page.goto(`${baseURL}/`, { waitUntil: 'commit' });
      if (scripts === 'run') await untilHydrated(page);
      await expect
        .poll(() => page.evaluate(measureTheCarousel).then(({ boxes }) => boxes.every((box) => box.loaded)))
        .toBe(true);
      if (scripts === 'held') expect(await isHydrated(page)).toBe(false);
      return page;
    };

    test('at first paint looks as it did', async ({ browser }) => {
      const page = await open(browser, 'held');
      await expect(page).toHaveScreenshot(`home-${width}-first-paint.png`, { caret: 'hide', maxDiffPixels: 150 });
      await page.close();
    });

    test('hydrated looks as it did', async ({ browser }) => {
      const page = await open(browser, 'run');
      await expect(page).toHaveScreenshot(`home-${width}-hydrated.png`, { caret: 'hide', maxDiffPixels: 150 });
      await page.close();
    });
  });
}

test.describe('emails', () => {
  const folder = mkdtempSync(join(tmpdir(), 'emails-'));
  test.beforeAll(() => {
    execFileSync('pnpm', ['--filter', 'api', 'emails', folder], { stdio: 'ignore' });
  });

  for (const email of ['confirmation', 'completed', 'rejected', 'extended']) {
    for (const width of [320, 1280]) {
      test(`the ${email} email looks as it did at ${width} px`, async ({ browser }) => {
        const page = await browser.newPage({ viewport: { width, height: 800 } });
        await page.goto(pathToFileURL(join(folder, `${email}.html`)).href);
        // Nothing reaches past the screen on a narrow phone.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await expect(page).toHaveScreenshot(`email-${email}-${width}.png`, { fullPage: true, maxDiffPixels: 150 });
        await page.close();
      });
    }
  }
});

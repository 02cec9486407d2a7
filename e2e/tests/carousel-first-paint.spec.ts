import { test as base, type Page } from '@playwright/test';
import { type Box, measureTheCarousel, watchTheCarousel } from '../carousel.ts';
import { holdScripts, isHydrated, untilHydrated } from '../phone.ts';
import { baseURL } from '../playwright.config.ts';
import { expect } from './support.ts';

/**
 * The hero's carousel of app screens is finished at first paint, at every width it has a layout for: with the page's
 * scripts held back, its slides are where they will be once react-slick has laid them out (within 1 px), in every
 * frame from the first paint until after hydration; the slides seen sit symmetrically (the same overhang at both
 * edges); and without JavaScript the page shows that same layout.
 */
const test = base;
test.describe.configure({ timeout: 60_000 });

const widths = [375, 768, 1024, 1280, 1920];

const boxesOf = (page: Page) => page.evaluate(() => window.carouselBoxes());

const isNear = (a: Box, b: Box) => a.slide === b.slide && Math.abs(a.x - b.x) <= 1;

function expectSamePlaces(seen: Box[], final: Box[], when: string) {
  expect(
    seen.map((box) => box.slide),
    `${when}: the same screens, in the same order`,
  ).toEqual(final.map((box) => box.slide));
  seen.forEach((box, index) => {
    const other = final[index]!;
    for (const side of ['x', 'y', 'width', 'height'] as const) {
      expect(Math.abs(box[side] - other[side]), `${when}: screen ${index + 1}'s ${side}`).toBeLessThanOrEqual(1);
    }
  });
}

for (const width of widths) {
  test(`/ at ${width} px: the carousel's first paint is its hydrated layout, also without JavaScript`, async ({
    browser,
  }, testInfo) => {
    // Reduced motion: the carousel starts paused, so that the hydrated layout stays still to be measured.
    const context = await browser.newContext({ viewport: { width, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.addInitScript(`window.carouselBoxes = ${measureTheCarousel}; (${watchTheCarousel})();`);
    const releaseScripts = await holdScripts(page);
    await page.goto(`${baseURL}/`, { waitUntil: 'commit' });
    await page.locator('[aria-label="app screens"] img').first().waitFor({ state: 'visible' });
    // The screens seen load with the page, without scripts (on a phone, the neighbours' slivers show a stand-in).
    await page.waitForFunction(() => window.carouselBoxes().boxes.every((box) => box.loaded));
    const firstPaint = await boxesOf(page);
    expect(await isHydrated(page), 'the page had hydrated before its first paint was measured').toBe(false);
    await testInfo.attach(`first-paint-${width}.png`, { body: await page.screenshot(), contentType: 'image/png' });

    releaseScripts();
    await untilHydrated(page);
    await page.waitForTimeout(500);
    const hydrated = await boxesOf(page);
    await testInfo.attach(`hydrated-${width}.png`, { body: await page.screenshot(), contentType: 'image/png' });

    expect(hydrated.boxes.length, 'screens seen once hydrated').toBeGreaterThanOrEqual(width > 480 ? 5 : 3);
    expectSamePlaces(firstPaint.boxes, hydrated.boxes, 'at first paint');
    // Every frame in between: nothing drawn elsewhere for a frame while react-slick takes over. A page drawn while
    // its markup was still arriving may show fewer screens, each where it stays.
    const frames = await page.evaluate(() => window.carouselFrames);
    frames.forEach((frame, index) =>
      expectSamePlaces(
        frame.boxes,
        frame.ready ? hydrated.boxes : hydrated.boxes.filter((box) => frame.boxes.some((seen) => isNear(seen, box))),
        `frame ${index + 1} (${frame.ready ? 'hydrated' : 'before'})`,
      ),
    );

    // Symmetric: the screens at the edges are cut (or not) by the same amount on both sides.
    const leftmost = hydrated.boxes[0]!;
    const rightmost = hydrated.boxes.at(-1)!;
    const overhangLeft = hydrated.left - leftmost.x;
    const overhangRight = rightmost.x + rightmost.width - hydrated.right;
    expect(Math.abs(overhangLeft - overhangRight), `overhangs ${overhangLeft} and ${overhangRight}`).toBeLessThan(1);
    await context.close();

    const withoutScripts = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: false });
    const still = await withoutScripts.newPage();
    await still.goto(`${baseURL}/`);
    await expect
      .poll(async () => (await still.evaluate(measureTheCarousel)).boxes.every((box) => box.loaded))
      .toBe(true);
    expectSamePlaces((await still.evaluate(measureTheCarousel)).boxes, hydrated.boxes, 'without JavaScript');
    await withoutScripts.close();
  });
}

test('/: the highlights a visitor scrolls to before the scripts run are shown, and stay shown when they arrive', async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const animationCode: string[] = [];
  page.on('request', (request) => {
    if (/animated-parts-[^/]*\.js$/.test(request.url())) animationCode.push(request.url());
  });
  const releaseScripts = await holdScripts(page);
  await page.goto(`${baseURL}/`, { waitUntil: 'commit' });
  const highlight = page.locator('[data-reveal]').first();
  await highlight.scrollIntoViewIfNeeded();
  expect(await isHydrated(page)).toBe(false);
  await expect(highlight).toHaveCSS('opacity', '1');
  await expect(highlight).toBeInViewport();

  releaseScripts();
  await untilHydrated(page);
  await expect.poll(() => animationCode.length).toBe(1);
  // Past the moment the animated parts replace the still ones: it never goes out.
  const opacities = await page.evaluate(async () => {
    const seen: string[] = [];
    for (let frame = 0; frame < 60; frame++) {
      await new Promise(requestAnimationFrame);
      seen.push(getComputedStyle(document.querySelector('[data-reveal]')!).opacity);
    }
    return seen;
  });
  expect(
    opacities.every((opacity) => opacity === '1'),
    `opacity in each frame: ${opacities.join(' ')}`,
  ).toBe(true);
  // One still below the screen waits there for its entrance.
  await expect(page.locator('[data-reveal]').last()).toHaveCSS('opacity', '0');
  await context.close();
});

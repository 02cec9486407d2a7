import { test as base, type Page } from '@playwright/test';
import { faqEntries, paths } from '@gift/content';
import { phonePage, untilHydrated } from '../phone.ts';
import { baseURL } from '../playwright.config.ts';
import { expect } from './support.ts';

/**
 * Parts of a page whose code loads after the page has hydrated (laterPart in @gift/ui): on `/`, everything below
 * the hero, and the hero's carousel (react-slick). The page answers from the server's HTML until then, and when
 * their code arrives they hydrate in place: nothing the visitor did meanwhile is lost and nothing is drawn again.
 * Their scripts are held in Playwright until released.
 */
const test = base;
test.describe.configure({ timeout: 60_000 });

const laterScript = (url: URL) => /\/(below-the-fold|slick-slider)-[^/]+\.js$/.test(url.pathname);

async function holdLaterParts(page: Page) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const asked: string[] = [];
  await page.route(laterScript, async (route) => {
    asked.push(new URL(route.request().url()).pathname);
    await released;
    await route.fallback();
  });
  return { release, asked };
}

const partsState = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('[data-later-part]')].map((part) => part.getAttribute('data-later-part-state')),
  );

const untilPartsHydrated = (page: Page) =>
  expect.poll(() => partsState(page), { timeout: 20_000 }).toEqual(['hydrated', 'hydrated']);

test('/ hydrates before its later parts are asked for: the carousel then, the rest when the visitor heads for it', async ({
  browser,
}) => {
  const page = await phonePage(browser);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => ['error', 'warning'].includes(message.type()) && errors.push(message.text()));
  await page.goto(baseURL + paths.home);
  await untilHydrated(page);
  // The server's nodes, to check they are the ones on screen once the parts hydrate.
  await page.evaluate(() => {
    const keep = window as unknown as { kept: Element[] };
    keep.kept = [document.querySelector('main details')!, document.querySelector('.slick-slide img')!];
  });
  // The carousel shows in the first viewport: its code comes at once. The rest waits for the visitor.
  await expect.poll(() => partsState(page), { timeout: 20_000 }).toEqual(['hydrated', null]);
  await page.waitForTimeout(1_500);
  expect(await partsState(page)).toEqual(['hydrated', null]);
  await page.mouse.wheel(0, 600);
  await untilPartsHydrated(page);
  const asked = await page.evaluate(() => {
    const hydrated = performance.getEntriesByName('hydrated')[0]!.startTime;
    return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => /\/(below-the-fold|slick-slider)-[^/]+\.js$/.test(entry.name))
      .map((entry) => ({
        file: entry.name.split('/').pop()!.split('-')[0],
        afterHydration: entry.startTime >= hydrated,
      }));
  });
  expect(asked).toEqual(
    expect.arrayContaining([
      { file: 'below', afterHydration: true },
      { file: 'slick', afterHydration: true },
    ]),
  );
  expect(asked).toHaveLength(2);
  const kept = await page.evaluate(() =>
    (window as unknown as { kept: Element[] }).kept.map((element) => element.isConnected),
  );
  expect(kept, 'the FAQ and the first slide drawn by the server are the ones on screen').toEqual([true, true]);
  await expect(page.locator('.slick-slider.slick-initialized')).toHaveCount(1);
  expect(errors).toEqual([]);
  await page.context().close();
});

test('what the visitor does in a part before its code arrives is kept when it hydrates', async ({ browser }) => {
  const page = await phonePage(browser);
  const held = await holdLaterParts(page);
  await page.goto(baseURL + paths.home);
  await untilHydrated(page);
  await expect.poll(() => held.asked.length, { timeout: 20_000 }).toBe(1);

  // The carousel paused, and an answer of the FAQ opened, while their code is away.
  await page.evaluate(() => {
    (window as unknown as { slide: Element }).slide = document.querySelector('.slick-slide img')!;
  });
  const pause = page.getByRole('checkbox', { name: /Pause/ });
  await pause.check();
  const faq = faqEntries[1]!;
  await page.getByText(faq.question, { exact: true }).click();
  await expect(page.getByText(faq.answer)).toBeVisible();
  // Heading for the rest of the page asked for its code too.
  expect(held.asked).toHaveLength(2);
  expect(await partsState(page)).toEqual([null, null]);

  held.release();
  await untilPartsHydrated(page);
  await expect(page.getByText(faq.answer)).toBeVisible();
  await expect(pause).toBeChecked();
  // Hydrated in place: a change that reached the carousel before its code would have had React draw it anew.
  expect(await page.evaluate(() => (window as unknown as { slide: Element }).slide.isConnected)).toBe(true);
  // Paused: the current slide stays while the carousel would have moved twice.
  const current = () => page.locator('.slick-slide.slick-current').getAttribute('data-index');
  const before = await current();
  await page.waitForTimeout(7_000);
  expect(await current()).toBe(before);
  await page.context().close();
});

test('a part in the first viewport counts: the page is hydrated only once it is', async ({ browser }) => {
  // A screen tall enough to show the whole page: every part of it is in the first viewport.
  const context = await browser.newContext({ viewport: { width: 1280, height: 9000 } });
  const page = await context.newPage();
  const held = await holdLaterParts(page);
  await page.goto(baseURL + paths.home);
  await expect.poll(() => held.asked.length, { timeout: 20_000 }).toBe(2);
  await page.waitForTimeout(1_000);
  // The carousel has no control of its own: only the part below the hero holds the page back.
  expect(await partsState(page)).toEqual([null, 'waiting']);
  await expect(page.locator('html')).not.toHaveAttribute('data-ready', 'true');
  held.release();
  await untilHydrated(page);
  expect(await partsState(page)).toEqual(['hydrated', 'hydrated']);
  await context.close();
});

test('/ reached from another page shows its parts at once, hydrated', async ({ page }) => {
  await page.goto(baseURL + paths.vendor);
  await untilHydrated(page);
  await page.getByRole('link', { name: 'Giftwell home' }).click();
  await expect(page).toHaveURL(baseURL + paths.home);
  await expect(page.getByText(faqEntries[1]!.question, { exact: true })).toBeAttached();
  await untilPartsHydrated(page);
});

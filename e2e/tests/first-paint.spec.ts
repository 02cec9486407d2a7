import { test as base } from '@playwright/test';
import { firstPaintControls } from '../first-paint-controls.ts';
import { holdScripts, isHydrated, phonePage } from '../phone.ts';
import { baseURL } from '../playwright.config.ts';
import { expect } from './support.ts';

/**
 * Every control a visitor uses as soon as they see it, on the phone profile (4x CPU, 150 ms, 1.6 Mbit/s), acted on
 * the moment it is visible, before the page's scripts have run (they are held back until the visitor has acted,
 * since they may otherwise win the race; `pnpm perf` measures the natural timing); and again with JavaScript off. The journeys in the
 * other files wait for hydration first: these are the ones that see a dropped tap or a wiped field.
 */
const test = base;
test.describe.configure({ timeout: 60_000 });

const marker = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

for (const control of firstPaintControls) {
  test(`${control.name}: answers when used at first paint on a phone`, async ({ browser }) => {
    const page = await phonePage(browser);
    const run = marker();
    const releaseScripts = await holdScripts(page);
    await page.goto(baseURL + control.path, { waitUntil: 'commit' });
    await page.locator('h1').first().waitFor({ state: 'visible' });
    expect(await isHydrated(page), 'the page had not hydrated when the visitor acted').toBe(false);
    await control.act(page, run);
    releaseScripts();
    await control.answered(page, run, true);
    await page.context().close();
  });

  if (!control.worksWithoutScripts) continue;
  test(`${control.name}: works with JavaScript off`, async ({ browser }) => {
    const page = await phonePage(browser, { javaScriptEnabled: false });
    const run = marker();
    await page.goto(baseURL + control.path);
    await control.act(page, run);
    await control.answered(page, run, false);
    await page.context().close();
  });
}

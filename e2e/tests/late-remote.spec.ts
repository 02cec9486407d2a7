import { test as base, type Page } from '@playwright/test';
import { firstPaintControls } from '../first-paint-controls.ts';
import { examplePagePaths } from '../example-pages.ts';
import { isHydrated, phonePage, untilHydrated } from '../phone.ts';
import { baseURL } from '../playwright.config.ts';
import { expect } from './support.ts';

/**
 * The window between the shell's scripts and the page's: on a slow line the shell has arrived and started (its app
 * runs; the federation runtime comes after hydration, issue 79) while the remote's code is still on its way. Nothing the shell does then may drop what the
 * visitor does, and every page still hydrates once its remote's code arrives. The remote's scripts are held back in
 * Playwright until released; the shell's come as they come. (first-paint.spec.ts holds every script instead.)
 */
const test = base;
test.describe.configure({ timeout: 60_000 });

const remoteScript = (url: URL) => url.pathname.startsWith('/remotes/') && /\.m?js$/.test(url.pathname);

/** Holds every script of the remotes until `release()`; resolves once the shell's runtime has started without them. */
async function holdRemoteCode(page: Page) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  await page.route(remoteScript, async (route) => {
    held += 1;
    await released;
    await route.fallback();
  });
  return {
    release,
    /** The shell's app has started while a remote's script was held. */
    async shellRunning() {
      await page.waitForFunction(() => performance.getEntriesByName('shell-started').length > 0, undefined, {
        timeout: 20_000,
      });
      expect(held, 'no remote script was asked for, so none was late').toBeGreaterThan(0);
      expect(await isHydrated(page), 'the page hydrated without its remote').toBe(false);
    },
  };
}

const marker = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

for (const control of firstPaintControls) {
  test(`${control.name}: answers when used while the remote's code is late`, async ({ browser }) => {
    const page = await phonePage(browser);
    const run = marker();
    const remote = await holdRemoteCode(page);
    await page.goto(baseURL + control.path, { waitUntil: 'commit' });
    await remote.shellRunning();
    await control.act(page, run);
    // The shell keeps running while the remote's code is still away: what the visitor did stays.
    await page.waitForTimeout(500);
    remote.release();
    await control.answered(page, run, true);
    await page.context().close();
  });
}

for (const path of examplePagePaths) {
  test(`${path} hydrates when its remote's code arrives two seconds after the shell's`, async ({ browser }) => {
    const page = await phonePage(browser);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    const remote = await holdRemoteCode(page);
    await page.goto(baseURL + path, { waitUntil: 'commit' });
    await remote.shellRunning();
    const heading = await page.locator('h1').first().textContent();
    await page.waitForTimeout(2_000);
    // Still the server's page, not a loading state, while the code is away.
    await expect(page.locator('h1').first()).toHaveText(heading ?? '');
    remote.release();
    await untilHydrated(page);
    await expect(page.locator('h1').first()).toHaveText(heading ?? '');
    expect(errors).toEqual([]);
    await page.context().close();
  });
}

const typedText = firstPaintControls.find((control) => control.name === 'deletion form: typed text kept')!;

test("deletion form: what was typed stays when the remote's code never arrives (the shell keeps the server's page)", async ({
  page,
}) => {
  // The account remote's scripts never come: the shell gives up after its two tries (about 20 s). Rendering its
  // unavailable state over the page would wipe the form; the server's page stays, and posts natively.
  await page.route(remoteScript, () => {
    /* never answers */
  });
  const run = marker();
  await page.goto(baseURL + typedText.path, { waitUntil: 'commit' });
  await typedText.act(page, run);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'kept', undefined, { timeout: 40_000 });
  await expect(page.getByText('This part of the site is unavailable')).toHaveCount(0);
  await typedText.answered(page, run, false);
});

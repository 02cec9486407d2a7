import type { Browser, BrowserContextOptions, Page } from '@playwright/test';

/**
 * The phone that Lighthouse's mobile preset stands for, as CDP sets it: 4x CPU slowdown, 150 ms round trips,
 * 1.6 Mbit/s down and 750 kbit/s up, on a 375 px touch screen.
 */
export const phoneContext = {
  viewport: { width: 375, height: 740 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
} satisfies BrowserContextOptions;

export async function throttleLikeAPhone(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
}

/** A fresh page on the phone profile: nothing cached, no cookies. */
export async function phonePage(browser: Browser, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ ...phoneContext, ...options });
  const page = await context.newPage();
  if (options.javaScriptEnabled !== false) await throttleLikeAPhone(page);
  return page;
}

/** Milliseconds from navigation start to the first contentful paint, once there is one. */
export async function firstContentfulPaint(page: Page): Promise<number> {
  const handle = await page.waitForFunction(
    () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
    undefined,
    { polling: 16, timeout: 30_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** Whether the page's scripts have run and React answers (the shell sets this once hydrated). */
export const isHydrated = (page: Page) => page.evaluate(() => document.documentElement.dataset.ready === 'true');

export async function untilHydrated(page: Page) {
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, {
    timeout: 30_000,
  });
}

/**
 * Holds the page's scripts back until `release()` is called: the visitor acts on the page as the server sent it,
 * however quickly the scripts would have come, and the scripts then arrive over what they did.
 */
export async function holdScripts(page: Page) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (url) => url.pathname.endsWith('.js'),
    async (route) => {
      await released;
      await route.fallback();
    },
  );
  return release;
}

import { expect, test as base, type Page } from '@playwright/test';

/**
 * Waits, after each full page load, until the shell has started: the page hydrated or rendered and answers input
 * (`true`), or was kept as the server sent it (`kept`). A remote that never answers holds that up for its two timeouts.
 */
async function untilReady(page: Page) {
  await page.waitForFunction(() => document.documentElement.dataset.ready !== undefined, undefined, {
    timeout: 30_000,
  });
}

/**
 * Console errors a journey did not expect; failures a test provokes on purpose are listed by the test.
 * `page.goto` and `page.reload` also wait for the shell to have started, as a person waits for the page to respond.
 */
export const test = base.extend<{ consoleErrors: string[] }>({
  page: async ({ page }, use) => {
    const goto = page.goto.bind(page);
    const reload = page.reload.bind(page);
    page.goto = async (url, options) => {
      const response = await goto(url, options);
      await untilReady(page);
      return response;
    };
    page.reload = async (options) => {
      const response = await reload(options);
      await untilReady(page);
      return response;
    };
    await use(page);
  },
  consoleErrors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await use(errors);
  },
});

export { expect };

/** From the not-found page (the shell alone, always hydrated), a client-side visit to `link` in the footer. */
export async function visitFromNotFound(page: Page, link: string) {
  await page.goto('/no-such-page');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await page.getByRole('contentinfo').getByRole('link', { name: link }).click();
}

export async function expectShellAround(page: Page) {
  await expect(page.getByRole('contentinfo')).toContainText('© 2025');
  await expect(page.getByRole('contentinfo').getByRole('link', { name: 'Privacy Policy' })).toBeVisible();
}

export async function deployedRemotes(page: Page): Promise<Record<string, string>> {
  const response = await page.request.get('/remotes.json');
  return (await response.json()) as Record<string, string>;
}

/** Waits until the page has stopped scrolling (smooth scrolls, late layout) and returns the position. */
export async function settledScrollY(page: Page): Promise<number> {
  let last = -1;
  for (let i = 0; i < 40; i++) {
    const now = await page.evaluate(() => Math.round(window.scrollY));
    if (now === last) return now;
    last = now;
    await page.waitForTimeout(150);
  }
  return last;
}

/** Serves the remotes manifest with some entries changed, as after a deploy or a tampered manifest. */
export async function changeManifest(
  page: Page,
  change: (manifest: Record<string, string>) => Record<string, string> | string,
) {
  const changed = (manifest: Record<string, string>) => {
    const result = change(manifest);
    return typeof result === 'string' ? result : JSON.stringify(result);
  };
  await page.route('**/remotes.json', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: changed((await response.json()) as Record<string, string>) });
  });
  // Each page carries the manifest it was served with: the same change there.
  await page.route(
    (url) => !/\.[a-z0-9]+$/i.test(url.pathname) && !url.pathname.startsWith('/api/'),
    async (route) => {
      if (route.request().resourceType() !== 'document') return route.fallback();
      const response = await route.fetch();
      const html = (await response.text()).replace(
        /(<script type="application\/json" id="remotes-manifest"[^>]*>)([^<]*)(<\/script>)/,
        (_all, open: string, json: string, close: string) => `${open}${changed(JSON.parse(json))}${close}`,
      );
      await route.fulfill({ response, body: html });
    },
  );
}

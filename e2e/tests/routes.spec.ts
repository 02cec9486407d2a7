import { pageRoutes } from '@gift/content';
import { deployedRemotes, expect, expectShellAround, test } from './support.ts';

const examplePath = (path: string) => path.replace('/*', '/gift-4f2a9c');

test.describe('every route', () => {
  for (const route of pageRoutes) {
    test(`${route.path} renders its page, or the unavailable state, inside header and footer`, async ({
      page,
      consoleErrors,
    }) => {
      const deployed = await deployedRemotes(page);
      const response = await page.goto(examplePath(route.path));
      expect(response?.status()).toBe(200);
      await expectShellAround(page);
      await expect(page).toHaveTitle(new RegExp(`^${route.title.replace(/[&]/g, '\\$&')} \\| `));
      if (deployed[route.remote]) {
        await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
        await expect(page.getByText('This part of the site is unavailable')).toHaveCount(0);
      } else {
        await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
        await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
        await expect(page.getByRole('banner')).toBeVisible();
      }
      expect(consoleErrors).toEqual([]);
    });
  }

  test('an unknown path answers 404 with the not-found page inside header and footer', async ({
    page,
    consoleErrors,
  }) => {
    const response = await page.goto('/no-such-page');
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    await expect(page).toHaveTitle(/^Page not found \| /);
    await expect(page.getByRole('banner')).toBeVisible();
    await expectShellAround(page);
    const elsewhere = page.getByRole('navigation', { name: 'Main pages' });
    await expect(elsewhere.getByRole('link')).toHaveText([
      'Sell on Giftwell',
      'Gifting for business',
      'Delete your account',
    ]);
    await page.getByRole('link', { name: 'Go to the home page' }).click();
    await expect(page).toHaveURL('/');
    // The browser reports the page's own 404 status; nothing else may fail.
    expect(consoleErrors.filter((text) => !text.includes('status of 404'))).toEqual([]);
  });

  test('on a phone the not-found card keeps a gutter on both sides, and its links lead on', async ({ page }) => {
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto('/no-such-page');
    const card = page.locator('main > div').filter({ has: page.getByRole('heading', { name: 'Page not found' }) });
    const box = (await card.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(16);
    expect(320 - (box.x + box.width)).toBeGreaterThanOrEqual(16);
    await page.getByRole('navigation', { name: 'Main pages' }).getByRole('link', { name: 'Sell on Giftwell' }).click();
    await expect(page).toHaveURL('/vendor');
  });

  test('another spelling of a page’s address goes to the page, from the server and in the browser alike', async ({
    page,
    request,
  }) => {
    const answer = await request.get('/PRIVACY?from=mail', { maxRedirects: 0 });
    expect(answer.status()).toBe(301);
    expect(answer.headers().location).toBe('/privacy?from=mail');
    await page.goto('/Privacy');
    await expect(page).toHaveURL('/privacy');
    await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
    // A link within the site spelled otherwise is followed to the same page, without a full load.
    await page.evaluate(() => {
      history.pushState(null, '', '/TERMS');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await expect(page).toHaveURL('/terms');
    await expect(page.getByRole('heading', { level: 1, name: /Terms/ })).toBeVisible();
  });

  test('a file-like address under the share-location pattern is the not-found page, with a page’s headers, before and after hydration', async ({
    page,
    consoleErrors,
  }) => {
    const response = await page.goto('/share-location/app.js');
    expect(response?.status()).toBe(404);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    // The browser's router agrees with the server: not the share-location screen.
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Share your delivery location' })).toHaveCount(0);
    expect(consoleErrors.filter((text) => !text.includes('status of 404'))).toEqual([]);
  });

  test('a missing file answers 404, not the page', async ({ request }) => {
    expect((await request.get('/assets/missing-file.js')).status()).toBe(404);
    expect((await request.get('/remotes/legal/nothing-here.js')).status()).toBe(404);
  });

  test('hashed assets are cached for good; HTML, the manifest and remote entries are revalidated', async ({
    page,
    request,
  }) => {
    const assets: string[] = [];
    page.on('response', (response) => {
      if (/\/assets\/.+\.js$/.test(response.url())) assets.push(response.url());
    });
    await page.goto('/privacy');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(assets.length).toBeGreaterThan(0);
    const asset = await request.get(assets[0]!, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(asset.headers()['cache-control']).toContain('immutable');
    expect(asset.headers()['content-encoding']).toMatch(/br|gzip/);
    for (const path of ['/privacy', '/remotes.json', '/remotes/legal/remoteEntry.js']) {
      expect((await request.get(path)).headers()['cache-control'], path).toBe('no-cache');
    }
  });
});

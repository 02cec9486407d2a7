import { changeManifest, expect, expectShellAround, test } from './support.ts';

test('a remote whose files are unreachable breaks only its own routes, and retry recovers it', async ({
  page,
  consoleErrors,
}) => {
  let blocked = true;
  await page.route('**/remotes/legal/**', (route) => (blocked ? route.abort('connectionrefused') : route.fallback()));

  await page.goto('/privacy');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  await expect(page.getByRole('banner')).toBeVisible();
  await expectShellAround(page);
  const failureLogs = consoleErrors.filter((text) => text.includes('[shell] The legal remote could not be loaded'));
  expect(failureLogs).toHaveLength(1);

  // Other routes keep working: the not-found page and the header's navigation.
  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  await page.goto('/no-such-page');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();

  await page.goto('/terms');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  blocked = false;
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
});

test('a remote that never answers times out into the unavailable state', async ({ page }) => {
  test.setTimeout(60_000);
  await page.route('**/remotes/legal/remoteEntry.js*', () => {
    /* never answers */
  });
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible({
    timeout: 30_000,
  });
  await expectShellAround(page);
});

test('a broken manifest leaves the shell working with every remote route unavailable', async ({ page }) => {
  await changeManifest(page, () => '{ not json');
  await page.goto('/terms');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  await expect(page.getByRole('banner')).toBeVisible();
  await expectShellAround(page);
});

test('a remote missing from the manifest shows the unavailable state on its routes only', async ({ page }) => {
  await changeManifest(page, ({ legal: _removed, ...others }) => others);
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  await page.goto('/nothing');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
});

test('host and remotes share one React, router and store: every shared module comes from the shell', async ({
  page,
}) => {
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  const providers = await page.evaluate(() => {
    type Share = Record<string, Record<string, Record<string, { from: string; loaded?: boolean; lib?: unknown }>>>;
    const share = (window as unknown as { __FEDERATION__: { __SHARE__: Record<string, Share> } }).__FEDERATION__
      .__SHARE__;
    const found: Record<string, string[]> = {};
    for (const scopes of Object.values(share))
      for (const [name, versions] of Object.entries(scopes.default ?? {}))
        for (const entry of Object.values(versions)) (found[name] ??= []).push(entry.from);
    return found;
  });
  for (const name of ['react', 'react-dom', '@gift/router', 'zustand', '@gift/store']) {
    expect(providers[name], name).toBeDefined();
    expect(new Set(providers[name]), name).toEqual(new Set(['shell']));
  }
});

import type { Page } from '@playwright/test';
import { changeManifest, expect, expectShellAround, test, visitFromNotFound } from './support.ts';

/** The shell's log line when a remote cannot be loaded (remotes.ts). */
const couldNotLoad = (errors: string[], remote: string) =>
  errors.filter((text) => text.includes(`[shell] The ${remote} remote could not be loaded`)).length;

/** The server's page stayed as it was sent: its heading, no unavailable state, not hydrated, the shell started. */
async function keptAsSent(page: Page, heading: string) {
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
  await expect(page.getByText('This part of the site is unavailable')).toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.dataset.ready)).toBe('kept');
  await expectShellAround(page);
}

test('a remote whose files are unreachable: a first load keeps the server’s page, a client-side visit shows the unavailable state, and retry recovers it', async ({
  page,
  consoleErrors,
}) => {
  let blocked = true;
  await page.route('**/remotes/legal/**', (route) => (blocked ? route.abort('connectionrefused') : route.fallback()));

  // What the server sent stays readable and usable, as without scripts; the failure is logged once.
  await page.goto('/privacy');
  await keptAsSent(page, 'Privacy Policy');
  expect(couldNotLoad(consoleErrors, 'legal')).toBe(1);
  // Its links work as links: the next page is the server's too.
  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();

  // Where the shell runs, a route of that remote shows the unavailable state inside header and footer.
  await visitFromNotFound(page, 'Terms & Conditions');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  await expect(page.getByRole('banner')).toBeVisible();
  await expectShellAround(page);
  blocked = false;
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
});

test('a remote that never answers: a first load keeps the server’s page, a client-side visit times out into the unavailable state', async ({
  page,
  consoleErrors,
}) => {
  test.setTimeout(90_000);
  // Its page module (a first load's, issue 79) and its entry (the retry's, and a client-side visit's).
  await page.route(
    (url) => url.pathname.startsWith('/remotes/legal/') && url.pathname.endsWith('.js'),
    () => {
      /* never answers */
    },
  );
  // The shell gives up after its two tries (remoteTimeoutMs each, about 20 s) and leaves the page as it was.
  await page.goto('/privacy');
  expect(couldNotLoad(consoleErrors, 'legal')).toBe(1);
  await keptAsSent(page, 'Privacy Policy');

  await visitFromNotFound(page, 'Terms & Conditions');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible({
    timeout: 30_000,
  });
  await expectShellAround(page);
});

test('a broken manifest: a first load keeps the server’s page, and the shell shows every remote route unavailable', async ({
  page,
}) => {
  await changeManifest(page, () => '{ not json');
  await page.goto('/terms');
  await keptAsSent(page, 'Terms & Conditions');
  await visitFromNotFound(page, 'Privacy Policy');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  await expect(page.getByRole('banner')).toBeVisible();
  await expectShellAround(page);
});

test('a remote missing from the manifest: its routes keep the server’s page or show the unavailable state, other pages work', async ({
  page,
}) => {
  await changeManifest(page, ({ legal: _removed, ...others }) => others);
  await page.goto('/privacy');
  await keptAsSent(page, 'Privacy Policy');
  await visitFromNotFound(page, 'Terms & Conditions');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  await page.goto('/vendor');
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.dataset.ready)).toBe('true');
});

test('host and remotes share one React, router and store: every shared module comes from the shell', async ({
  page,
}) => {
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  // The page's module imports them by name: the page's import map resolves every name to the shell's one module.
  const imports = await page.evaluate(
    () => (JSON.parse(document.querySelector('script[type="importmap"]')!.textContent!) as { imports: object }).imports,
  );
  expect(Object.keys(imports)).toEqual(expect.arrayContaining(['react', 'react-dom', '@gift/router', '@gift/store']));
  expect(new Set(Object.values(imports)).size).toBe(1);
  expect(Object.values(imports)[0]).toMatch(/^\/assets\/shared-modules-[\w-]+\.js$/);
  // The federation runtime, started once the page is idle, and a remote loaded through it (a client-side visit).
  await page.waitForFunction(() => '__FEDERATION__' in window, undefined, { timeout: 20_000 });
  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
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

import { expect, expectShellAround, test } from './support.ts';

test('client-side navigation moves between pages without a reload and sets the title', async ({
  page,
  consoleErrors,
}) => {
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));

  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
  await expect(page).toHaveTitle(/^Terms & Conditions \| /);
  await page.getByRole('link', { name: /home$/ }).click();
  await expect(page).toHaveURL('/');
  await expectShellAround(page);
  expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
  expect(consoleErrors).toEqual([]);
});

test('a route change scrolls to the top and moves focus to the new page; back restores the position', async ({
  page,
}) => {
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  await page.getByRole('contentinfo').scrollIntoViewIfNeeded();
  const before = await page.evaluate(() => window.scrollY);
  expect(before).toBeGreaterThan(300);

  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  await expect(page.locator('main')).toBeFocused();

  await page.goBack();
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(before - 5);

  // A reload comes back to the same place too, and forward to the top of the other page.
  await page.reload();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(before - 5);
  await page.goForward();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
});

test('while a page is loading the previous one stays, with a progress bar, until the new one is ready', async ({
  page,
}) => {
  await page.goto('/');
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/remotes\/business\//, async (route) => {
    await held;
    await route.continue();
  });
  await page.getByRole('link', { name: 'Explore corporate gifting' }).click();
  await expect(page.locator('[class*="progress"]')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: /The easiest way to/ })).toBeVisible();
  release();
  await expect(page).toHaveURL('/business');
  await expect(page.getByRole('heading', { level: 1, name: /The easiest way to/ })).toHaveCount(0);
  await expect(page.locator('[class*="progress"]')).toHaveCount(0);
});

test('a hash in the address scrolls to its section once the remote has rendered it, clear of the header', async ({
  page,
}) => {
  await page.goto('/terms#orders');
  const section = page.locator('#orders');
  await expect(section).toBeVisible();
  await expect
    .poll(async () => {
      const top = await section.evaluate((element) => element.getBoundingClientRect().top);
      const headerBottom = await page.getByRole('banner').evaluate((element) => element.getBoundingClientRect().bottom);
      return top >= headerBottom - 1 && top < headerBottom + 60;
    })
    .toBe(true);
});

test('the header menu links lead to the landing page sections', async ({ page }) => {
  await page.goto('/terms');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQs' }).click();
  await expect(page).toHaveURL('/#faqs');
});

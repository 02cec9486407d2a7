import type { Page } from '@playwright/test';
import { violations } from '../axe.ts';
import { exampleShareLink as shareLink, examplePagePaths } from '../example-pages.ts';
import { expect, test, visitFromNotFound } from './support.ts';

async function open(page: Page, path: string) {
  await page.goto(path);
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await page.waitForLoadState('networkidle');
}

for (const width of [375, 1280]) {
  for (const colorScheme of ['light', 'dark'] as const) {
    test.describe(`axe at ${width} px, ${colorScheme}`, () => {
      test.use({ viewport: { width, height: 800 }, colorScheme });

      for (const path of [...examplePagePaths, '/no-such-page']) {
        test(`${path} has no WCAG 2.2 AA violations`, async ({ page }) => {
          await open(page, path);
          expect(await violations(page)).toEqual([]);
        });
      }
    });
  }
}

test.describe('axe in every state', () => {
  // Each test loads pages, acts and reads each state with axe (about 10 s a reading on a busy 2-core machine).
  test.describe.configure({ timeout: 60_000 });

  test('small-screen menu open', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await open(page, '/');
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQs' })).toBeVisible();
    expect(await violations(page)).toEqual([]);

    await open(page, '/vendor');
    await page.getByRole('button', { name: 'Menu' }).click();
    await expect(page.getByRole('navigation', { name: 'Vendor' }).getByRole('link', { name: /Login/ })).toBeVisible();
    expect(await violations(page)).toEqual([]);
  });

  test('FAQ item open and carousels paused', async ({ page }) => {
    await open(page, '/');
    await page.getByText('How does the app simplify gifting?').click();
    await page.getByRole('checkbox', { name: 'Pause taglines and app screens' }).check();
    await expect(page.getByRole('checkbox', { name: 'Pause taglines and app screens' })).toBeChecked();
    expect(await violations(page)).toEqual([]);
  });

  test('deletion form: error and success', async ({ page }) => {
    await open(page, '/delete-account');
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Please fill in all fields.');
    expect(await violations(page)).toEqual([]);

    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Email Address').fill(`axe-${Date.now()}@example.com`);
    await page.getByLabel('Reason for Deleting').fill('Testing the form.');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');
    expect(await violations(page)).toEqual([]);

    await page.route('**/api/delete-account', (route) => route.fulfill({ status: 500, json: {} }));
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Email Address').fill('ann@example.com');
    await page.getByLabel('Reason for Deleting').fill('Testing the form.');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Something went wrong. Please try again later.');
    expect(await violations(page)).toEqual([]);
  });

  test('deletion form: as a native post came back, the message and the fields given back', async ({
    page,
    baseURL,
  }) => {
    // Posted as the page's form is without scripts; the answer's cookies land in this page's context.
    await page.request.post('/api/delete-account', {
      form: { name: 'Ann Lee', email: 'ann@example.com', reason: '' },
      headers: { Origin: baseURL! },
      maxRedirects: 0,
    });
    await open(page, '/delete-account');
    await expect(page.locator('p[role="status"]')).toHaveText('Please fill in all fields.');
    await expect(page.getByLabel('Full Name')).toHaveValue('Ann Lee');
    expect(await violations(page)).toEqual([]);
  });

  test('confirmation page: invalid link', async ({ page }) => {
    await open(page, `/delete-account/confirm#token=${'A'.repeat(43)}`);
    await expect(page.getByRole('alert')).toBeVisible();
    expect(await violations(page)).toEqual([]);
  });

  test.describe('share-location with location allowed', () => {
    test.use({ permissions: ['geolocation'], geolocation: { latitude: 52.370216, longitude: 4.895168, accuracy: 12 } });

    test('position found, typed address, shared', async ({ page }) => {
      await open(page, shareLink);
      await page.getByRole('button', { name: 'Share my location' }).click();
      await expect(page.getByRole('button', { name: 'Confirm this location' })).toBeVisible();
      expect(await violations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Confirm this location' }).click();
      await expect(page.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
      expect(await violations(page)).toEqual([]);
    });
  });

  test.describe('share-location with location denied', () => {
    test.use({ permissions: [] });

    test('permission denied and the address form', async ({ page }) => {
      await open(page, shareLink);
      await page.getByRole('button', { name: 'Share my location' }).click();
      await expect(page.getByRole('alert')).toBeVisible();
      expect(await violations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Type an address instead' }).click();
      await expect(page.getByLabel('Delivery address')).toBeVisible();
      expect(await violations(page)).toEqual([]);

      // The disclosure that carries the address form from first paint.
      await open(page, shareLink);
      await page.getByText('Type an address instead').click();
      await expect(page.getByLabel('Delivery address')).toBeVisible();
      expect(await violations(page)).toEqual([]);
    });
  });

  test('share-location with a malformed token', async ({ page }) => {
    await open(page, '/share-location/bad');
    expect(await violations(page)).toEqual([]);
  });

  test('the unavailable-remote fallback', async ({ page }) => {
    await page.route('**/remotes/legal/**', (route) => route.abort());
    // Shown where the shell runs (a first load keeps the server's page): a client-side visit from the 404.
    await visitFromNotFound(page, 'Privacy Policy');
    await expect(page.getByRole('button', { name: /try again/i })).toBeVisible({ timeout: 15_000 });
    expect(await violations(page)).toEqual([]);
  });
});

test('the sweep itself catches a violation: an unlabelled button and low-contrast text', async ({ page }) => {
  await open(page, '/privacy');
  await page.evaluate(() => {
    const main = document.querySelector('main')!;
    main.insertAdjacentHTML('beforeend', '<button type="button"></button><p style="color:#ddd">faint</p>');
  });
  const found = await violations(page);
  expect(found.some((line) => line.startsWith('button-name'))).toBe(true);
  expect(found.some((line) => line.startsWith('color-contrast'))).toBe(true);
});

import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import { dataDir } from '../playwright.config.ts';
import { expect, test } from './support.ts';

/** What the operators see: the open requests, through their CLI. */
function storedRequests(): { email: string; name: string; reason: string; status: string }[] {
  const output = execFileSync('pnpm', ['--silent', '--filter', 'api', 'requests', 'export', '--format', 'json'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  return JSON.parse(output.slice(output.indexOf('[')));
}

test.describe('delete account', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/delete-account');
    await expect(page.getByRole('heading', { level: 1, name: 'Delete Your Account' })).toBeVisible();
  });

  const fill = async (page: Page, email: string, reason = 'I no longer need it.') => {
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Reason for Deleting').fill(reason);
  };

  test('starts empty, with the status region already on the page', async ({ page, consoleErrors }) => {
    await expect(page.getByLabel('Email Address')).toHaveValue('');
    await expect(page.locator('p[role="status"]')).toBeEmpty();
    await expect(page.getByText("We're sorry to see you go.")).toBeVisible();
    await expect(page.getByRole('heading', { name: 'What happens next' })).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });

  test('an empty reason asks for all fields and sends nothing', async ({ page }) => {
    const posts: string[] = [];
    page.on('request', (request) => request.method() === 'POST' && posts.push(request.url()));
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Email Address').fill('ann@example.com');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Please fill in all fields.');
    expect(posts).toEqual([]);
  });

  test('an empty form is stopped by the browser at the name, which the spec marks required, and sends nothing', async ({
    page,
  }) => {
    const posts: string[] = [];
    page.on('request', (request) => request.method() === 'POST' && posts.push(request.url()));
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.getByLabel('Full Name')).toBeFocused();
    expect(await page.getByLabel('Full Name').evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(
      true,
    );
    await expect(page.locator('p[role="status"]')).toHaveText('');
    expect(posts).toEqual([]);
  });

  test('with the name given, an empty email asks for all fields in the spec’s words and sends nothing', async ({
    page,
  }) => {
    const posts: string[] = [];
    page.on('request', (request) => request.method() === 'POST' && posts.push(request.url()));
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Reason for Deleting').fill('I no longer need it.');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Please fill in all fields.');
    expect(posts).toEqual([]);
  });

  test('a valid request reaches the operators, clears the form and confirms', async ({ page }) => {
    const email = `e2e-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    await fill(page, email.toUpperCase());
    const [response] = await Promise.all([
      page.waitForResponse('**/api/delete-account'),
      page.getByRole('button', { name: 'Submit Request' }).click(),
    ]);
    expect(response.status()).toBe(202);
    await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');
    await expect(page.getByLabel('Email Address')).toHaveValue('');
    await expect(page.getByLabel('Reason for Deleting')).toHaveValue('');
    expect(storedRequests()).toContainEqual(
      expect.objectContaining({ email, name: 'Ann Lee', reason: 'I no longer need it.', status: 'received' }),
    );
  });

  test('a server error keeps the fields and says something went wrong', async ({ page }) => {
    await page.route('**/api/delete-account', (route) => route.fulfill({ status: 500, json: { error: 'boom' } }));
    await fill(page, 'ann@example.com');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Something went wrong. Please try again later.');
    await expect(page.getByLabel('Email Address')).toHaveValue('ann@example.com');
    await expect(page.getByLabel('Reason for Deleting')).toHaveValue('I no longer need it.');
  });

  test('a network failure keeps the fields, logs it, and reports a server error', async ({ page, consoleErrors }) => {
    await page.route('**/api/delete-account', (route) => route.abort('internetdisconnected'));
    await fill(page, 'ann@example.com');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Server error. Please try again later.');
    await expect(page.getByLabel('Full Name')).toHaveValue('Ann Lee');
    expect(consoleErrors.some((text) => text.includes('could not be sent'))).toBe(true);
  });

  test('the button cannot send a second request while one is in flight', async ({ page }) => {
    let posts = 0;
    await page.route('**/api/delete-account', async (route) => {
      posts++;
      await new Promise((resolve) => setTimeout(resolve, 800));
      await route.fulfill({ status: 202, json: { reference: 'DEL-TEST-TEST', status: 'received' } });
    });
    await fill(page, 'ann@example.com');
    const button = page.getByRole('button', { name: 'Submit Request' });
    await button.click();
    await expect(button).toBeDisabled();
    await button.click({ force: true });
    await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');
    expect(posts).toBe(1);
  });
});

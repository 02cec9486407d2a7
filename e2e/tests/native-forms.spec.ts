import { execFileSync } from 'node:child_process';
import { deflateRawSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { exampleShareLink } from '../example-pages.ts';
import { dataDir } from '../playwright.config.ts';

/** With JavaScript off, the forms post natively and the server answers on the same page (Post/Redirect/Get). */
test.use({ javaScriptEnabled: false });

function storedEmails(): string[] {
  const output = execFileSync('pnpm', ['--silent', '--filter', 'api', 'requests', 'export', '--format', 'json'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  return (JSON.parse(output.slice(output.indexOf('['))) as { email: string }[]).map((row) => row.email);
}

const uniqueEmail = () => `native-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

test.describe('the deletion form without JavaScript', () => {
  test('is sent, stored once, and answered on the page; a reload or Back sends nothing again', async ({ page }) => {
    const posts: string[] = [];
    page.on('request', (request) => request.method() === 'POST' && posts.push(request.url()));
    const email = uniqueEmail();
    await page.goto('/delete-account');
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Email Address').fill(email);
    await page.getByLabel('Reason for Deleting').fill('Sent without scripts.');
    await page.getByRole('button', { name: 'Submit Request' }).click();

    await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/delete-account');
    await expect(page.getByLabel('Email Address')).toHaveValue('');
    expect(storedEmails()).toContain(email);
    expect(posts).toHaveLength(1);

    await page.reload();
    await expect(page.locator('p[role="status"]')).toBeEmpty();
    await page.goBack();
    await page.goForward();
    expect(posts, 'no post after the first').toHaveLength(1);
    expect(storedEmails().filter((stored) => stored === email)).toHaveLength(1);
  });

  test('a planted outcome cookie shows nothing on the page: only the server’s signed ones are read', async ({
    page,
    context,
    baseURL,
  }) => {
    // What the page used to take as is: the outcome, deflated and base64url-encoded, unsigned.
    const forged = deflateRawSync(
      JSON.stringify({ form: 'delete-account', outcome: 'refused', message: 'Call 0800 123 to keep your account' }),
    ).toString('base64url');
    for (const value of [forged, `${forged}.${'A'.repeat(43)}`]) {
      await context.clearCookies();
      await context.addCookies([{ name: 'form-outcome.0', value, url: `${baseURL}/delete-account` }]);
      await page.goto('/delete-account');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.locator('p[role="status"]')).toBeEmpty();
      await expect(page.getByText('Call 0800 123')).toHaveCount(0);
    }
  });

  test('an empty reason gives the spec’s message and keeps what was typed, out of the address', async ({ page }) => {
    const email = uniqueEmail();
    await page.goto('/delete-account');
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Email Address').fill(email);
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Please fill in all fields.');
    await expect(page.getByLabel('Full Name')).toHaveValue('Ann Lee');
    await expect(page.getByLabel('Email Address')).toHaveValue(email);
    expect(page.url()).not.toContain(encodeURIComponent(email));
    expect(page.url()).not.toContain('Ann');
    expect(storedEmails()).not.toContain(email);

    // Fixed and sent again from the page the answer came on.
    await page.getByLabel('Reason for Deleting').fill('Now with a reason.');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');
    expect(storedEmails()).toContain(email);
  });

  test('an address the server cannot use is refused on the page, in plain words', async ({ page }) => {
    await page.goto('/delete-account');
    await page.getByLabel('Full Name').fill('Ann Lee');
    await page.getByLabel('Email Address').fill('ann@nowhere');
    await page.getByLabel('Reason for Deleting').fill('A reason.');
    await page.getByRole('button', { name: 'Submit Request' }).click();
    await expect(page.locator('p[role="status"]')).toHaveText('Enter a valid email address.');
    await expect(page.getByLabel('Email Address')).toHaveValue('ann@nowhere');
  });

  test('a post from another site is refused with a page that says why, and stores nothing', async ({
    page,
    baseURL,
  }) => {
    const email = uniqueEmail();
    const response = await page.request.post(`${baseURL}/api/delete-account`, {
      form: { name: 'Ann Lee', email, reason: 'Forged.' },
      headers: { Origin: 'https://attacker.example', 'Sec-Fetch-Site': 'cross-site' },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(403);
    expect(await response.text()).toContain('Cross-site requests are not accepted.');
    expect(storedEmails()).not.toContain(email);
  });
});

test('the share-location page without JavaScript: the typed address is sent, the position needs scripts', async ({
  page,
}) => {
  await page.goto(exampleShareLink);
  await expect(page.getByText('Sharing your device’s position needs JavaScript')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Share my location' })).toBeDisabled();
  await page.getByText('Type an address instead').click();
  await page.getByLabel('Delivery address').fill('12');
  await page.getByRole('button', { name: 'Confirm address' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Enter the full delivery address.' })).toBeVisible();
  await expect(page.getByLabel('Delivery address')).toHaveValue('12');
  await page.getByLabel('Delivery address').fill('12 Canal Street, 1012 AB Amsterdam');
  await page.getByRole('button', { name: 'Confirm address' }).click();
  await expect(page.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  await expect(page.getByText('12 Canal Street, 1012 AB Amsterdam')).toBeVisible();
  expect(new URL(page.url()).pathname).toBe(exampleShareLink);
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../playwright.config.ts';
import { expect, test } from './support.ts';

/** The operators' CLI, against the database of the server under test. */
function cli<T>(...args: string[]): T {
  const output = execFileSync('pnpm', ['--silent', '--filter', 'api', 'requests', ...args], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  return JSON.parse(output.slice(output.indexOf('[')));
}

const statusOf = (email: string) =>
  cli<{ email: string; status: string }[]>('export', '--format', 'json', '--all').find((row) => row.email === email)
    ?.status;

test('the owner confirms by email: opening the link changes nothing, pressing the button verifies', async ({
  page,
}) => {
  const email = `confirm-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
  await page.goto('/delete-account');
  await expect(page.getByText('We will email you a link to confirm the request.')).toBeVisible();
  await page.getByLabel('Full Name').fill('Ann Lee');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Reason for Deleting').fill('Moving to another app.');
  await page.getByRole('button', { name: 'Submit Request' }).click();
  await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');

  let sent: { id: number; body_text: string; sent_at: string | null } | undefined;
  await expect
    .poll(() => {
      sent = cli<{ id: number; to_address: string; body_text: string; sent_at: string | null }[]>(
        'outbox',
        '--json',
      ).find((row) => row.to_address === email);
      return Boolean(sent?.sent_at);
    })
    .toBe(true);
  // The operators' tools never show the link; the email as delivered (a file, without SMTP) carries it.
  expect(sent?.body_text).toContain('#token=[hidden]');
  const delivered = readFileSync(join(dataDir, 'outbox', `${String(sent!.id).padStart(6, '0')}.eml`), 'utf8');
  const link = delivered
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=')
    .match(/http\S+#token=[A-Za-z0-9_-]{43}/)?.[0];
  expect(link).toBeTruthy();

  await page.goto(link!);
  await expect(page.getByText(/You asked on .* to delete the account for c\*\*\*@example\.com/)).toBeVisible();
  expect(statusOf(email)).toBe('received');

  await page.getByRole('button', { name: 'Confirm deletion request' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Your request is confirmed' })).toBeVisible();
  expect(statusOf(email)).toBe('verified');

  await page.goto('/privacy');
  await page.goto(link!);
  await expect(page.getByRole('alert')).toHaveText(/already been used/);
});

test('a forged or incomplete link gets a clear page, never an error trace', async ({ page, consoleErrors }) => {
  await page.goto(`/delete-account/confirm#token=${'A'.repeat(43)}`);
  await expect(page.getByRole('alert')).toHaveText(/This link is not valid/);
  await expect(page.getByRole('link', { name: 'Send a new request' })).toHaveAttribute('href', '/delete-account');
  await page.goto('/delete-account/confirm');
  await expect(page.getByRole('alert')).toHaveText(/This link is not valid/);
  expect(consoleErrors.filter((text) => !text.includes('404'))).toEqual([]);
});

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataDir } from '../playwright.config.ts';
import { expect, test } from './support.ts';

/**
 * The operators' CLI (`pnpm --filter api requests`), against the database of the server under test: what it prints.
 * Started as that script starts it, without pnpm in front: each pnpm started costs about 3 s, 10-15 s beside the
 * release journeys' browsers.
 */
const operator = (...args: string[]) =>
  execFileSync(process.execPath, ['bin/requests.mjs', ...args], {
    cwd: fileURLToPath(new URL('../../api/', import.meta.url)),
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });

/** The same, for a command that prints JSON. */
function cli<T>(...args: string[]): T {
  const output = operator(...args);
  return JSON.parse(output.slice(output.indexOf('[')));
}

const statusOf = (email: string) =>
  cli<{ email: string; status: string }[]>('export', '--format', 'json', '--all').find((row) => row.email === email)
    ?.status;

test('the owner confirms by email (opening the link changes nothing, pressing the button verifies) and is told of the completion', async ({
  page,
}) => {
  // Six runs of the operators' CLI, a few seconds each, up to 15 s while the release journeys load the machine.
  test.setTimeout(150_000);
  const email = `confirm-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
  await page.goto('/delete-account');
  await expect(page.getByText('We will email you a link to confirm the request.')).toBeVisible();
  await page.getByLabel('Full Name').fill('Ann Lee');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Reason for Deleting').fill('Moving to another app.');
  await page.getByRole('button', { name: 'Submit Request' }).click();
  await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');

  // The owner's inbox: without SMTP, each delivered email is a file in the outbox folder.
  const inbox = join(dataDir, 'outbox');
  const inboxOf = () =>
    existsSync(inbox)
      ? readdirSync(inbox)
          .map((file) =>
            readFileSync(join(inbox, file), 'utf8')
              .replace(/=\r?\n/g, '')
              .replace(/=3D/g, '='),
          )
          .filter((message) => message.includes(`To: ${email}`))
      : [];
  const delivered = () => inboxOf()[0];
  await expect.poll(() => Boolean(delivered())).toBe(true);
  const link = delivered()?.match(/http\S+#token=[A-Za-z0-9_-]{43}/)?.[0];
  // The operators' tools never show the link, sent or not.
  const row = cli<{ to_address: string; body_text: string }[]>('outbox', '--json').find(
    (queued) => queued.to_address === email,
  );
  expect(row?.body_text).toContain('#token=[hidden]');
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

  // An operator completes it; the owner is told by email what was deleted and what is kept.
  const { reference } = cli<{ email: string; reference: string }[]>('export', '--format', 'json', '--all').find(
    (request) => request.email === email,
  )!;
  expect(operator('complete', reference, '--by', 'e2e')).toContain(`${reference} is now completed.`);
  await expect
    .poll(() => inboxOf().find((message) => message.includes(`Subject: Your account has been deleted (${reference})`)))
    .toContain('What we keep, and why');
});

test('a forged or incomplete link gets a clear page, never an error trace', async ({ page, consoleErrors }) => {
  await page.goto(`/delete-account/confirm#token=${'A'.repeat(43)}`);
  await expect(page.getByRole('alert')).toHaveText(/This link is not valid/);
  await expect(page.getByRole('link', { name: 'Send a new request' })).toHaveAttribute('href', '/delete-account');
  await page.goto('/delete-account/confirm');
  await expect(page.getByRole('alert')).toHaveText(/This link is not valid/);
  expect(consoleErrors.filter((text) => !text.includes('404'))).toEqual([]);
});

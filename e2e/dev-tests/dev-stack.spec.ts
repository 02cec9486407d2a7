import { expect, test } from '@playwright/test';
import { ports } from '../playwright.dev.config.ts';

/** What MailDev's REST API lists: https://github.com/maildev/maildev/blob/master/docs/rest.md */
interface CaughtEmail {
  subject: string;
  to: { address: string }[];
  text: string;
  html: string;
}

const mailApi = `http://127.0.0.1:${ports.mail}/email`;

test('the delete form works end to end in pnpm dev: submit, open the mail in the catcher, follow the link, confirm', async ({
  page,
  request,
}) => {
  const email = `dev-${Date.now()}@example.com`;
  await page.goto('/delete-account');
  await page.getByLabel('Full Name').fill('Ann Lee');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Reason for Deleting').fill('Trying the whole stack in development.');
  await page.getByRole('button', { name: 'Submit Request' }).click();
  await expect(page.locator('p[role="status"]')).toHaveText('Your account deletion request has been submitted.');

  const caught = async () =>
    ((await (await request.get(mailApi)).json()) as CaughtEmail[]).find((message) =>
      message.to.some((to) => to.address === email),
    );
  await expect.poll(caught, { timeout: 15_000 }).toBeDefined();
  const message = (await caught())!;
  expect(message.subject).toMatch(/^Confirm your account deletion request \(DEL-/);
  // The branded part's button and the text carry the one link, to the dev site.
  const link = /href="(http:\/\/localhost:\d+\/delete-account\/confirm#token=[\w-]{43})"/.exec(message.html)?.[1];
  // To the dev site itself: the API's idea of the site's address matches the shell's dev server.
  expect(link?.startsWith(`${test.info().project.use.baseURL}/`), link).toBe(true);
  expect(message.text).toContain(link);

  await page.goto(link!);
  await page.getByRole('button', { name: 'Confirm deletion request' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Your request is confirmed' })).toBeVisible();
});

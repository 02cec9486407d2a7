import { readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test, type Locator, type Page } from '@playwright/test';

/**
 * Hot updates in the composed site: an edit to a remote's page or to the shell's header reaches the page in
 * `pnpm dev` without a reload, and what the visitor typed stays (React Fast Refresh keeps state and DOM).
 */
const workspaceFile = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * Saves `text` to `file` whole, as editors that save atomically do: written beside it, then renamed over it. A write in
 * place empties the file first, and a watcher that reads it then sees a module with nothing in it (a CI-like run met
 * it on the revert of the header: "Could not Fast Refresh (export Header removed)", and the page never came back).
 */
function save(file: string, text: string) {
  writeFileSync(`${file}.saving`, text);
  renameSync(`${file}.saving`, file);
}

async function expectHotUpdate(
  page: Page,
  {
    file,
    from,
    to,
    changed,
    check = (locator) => expect(locator).toBeVisible(),
  }: {
    file: string;
    from: string;
    to: string;
    changed: (page: Page) => Locator;
    check?: (locator: Locator) => Promise<void>;
  },
) {
  const original = readFileSync(file, 'utf8');
  expect(original).toContain(from);
  try {
    await page.goto('/delete-account');
    await page.getByLabel('Full Name').fill('Typed before the edit');
    // A reload would start a fresh window: mark this one.
    await page.evaluate(() => ((window as { beforeEdit?: boolean }).beforeEdit = true));
    const saved = Date.now();
    save(file, original.replace(from, to));
    await check(changed(page));
    console.log(`${file.split('/').slice(-3).join('/')}: save to update in the composed page ${Date.now() - saved} ms`);
    expect(await page.evaluate(() => (window as { beforeEdit?: boolean }).beforeEdit)).toBe(true);
    await expect(page.getByLabel('Full Name')).toHaveValue('Typed before the edit');
  } finally {
    save(file, original);
  }
}

test("an edit to a remote page's heading appears at once, the typed value kept", async ({ page }) => {
  await expectHotUpdate(page, {
    file: workspaceFile('account/src/content/delete-account.content.ts'),
    from: "title: 'Delete Your Account'",
    to: "title: 'Delete Your Account, hot'",
    changed: (current) => current.getByRole('heading', { level: 1, name: 'Delete Your Account, hot' }),
  });
  await expect(page.getByRole('heading', { level: 1, name: 'Delete Your Account' })).toBeVisible();
});

test("an edit to the shell's header appears at once, the remote page's typed value kept", async ({ page }) => {
  await expectHotUpdate(page, {
    file: workspaceFile('shell/src/app/header.tsx'),
    from: '{item.label}\n',
    to: '{item.label} (hot)\n',
    changed: (current) => current.getByRole('banner').getByRole('link', { name: 'Home (hot)' }),
  });
  await expect(page.getByRole('banner').getByRole('link', { name: 'Home', exact: true })).toBeVisible();
});

test("an edit to a remote's stylesheet applies at once, the typed value kept", async ({ page }) => {
  const file = workspaceFile('account/src/pages/delete-account-page.module.css');
  const original = readFileSync(file, 'utf8');
  await expectHotUpdate(page, {
    file,
    from: original,
    to: `${original}\nmain h1 {\n  color: rgb(1, 2, 3);\n}\n`,
    changed: (current) => current.locator('main h1'),
    check: async (heading) => expect(heading).toHaveCSS('color', 'rgb(1, 2, 3)'),
  });
});

/**
 * Saves `text` in place, as many editors do (Vim's default, VS Code, most IDEs): the file is opened, emptied, then
 * written. Between the two a watcher may read an empty module; `gap` holds the file empty that long.
 */
async function saveInPlace(file: string, text: string, gap: number) {
  if (gap === 0) return writeFileSync(file, text);
  truncateSync(file, 0);
  await new Promise((resolve) => setTimeout(resolve, gap));
  writeFileSync(file, text);
}

test('twelve saves in place of a remote page, each shown, none breaking the page', async ({ page }) => {
  const file = workspaceFile('account/src/content/delete-account.content.ts');
  const original = readFileSync(file, 'utf8');
  const broken: string[] = [];
  page.on('pageerror', (error) => broken.push(error.message));
  try {
    await page.goto('/delete-account');
    await page.getByLabel('Full Name').fill('Typed before the saves');
    for (let save = 1; save <= 12; save++) {
      const title = `Delete Your Account, save ${save}`;
      // Half of them written at once, half with the file empty for 20 ms first (a slow disk, a large file).
      await saveInPlace(file, original.replace("title: 'Delete Your Account'", `title: '${title}'`), save % 2 ? 0 : 20);
      await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
      await expect(page.getByText('This part of the site is unavailable')).toHaveCount(0);
    }
    await expect(page.getByLabel('Full Name')).toHaveValue('Typed before the saves');
    expect(broken).toEqual([]);
  } finally {
    save(file, original);
  }
  await expect(page.getByRole('heading', { level: 1, name: 'Delete Your Account' })).toBeVisible();
});

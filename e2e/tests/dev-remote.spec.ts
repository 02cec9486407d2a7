import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { devPorts } from '@gift/federation';
import { expect, test } from './support.ts';

/**
 * `pnpm dev:remote legal --against <site>` as a team runs it against a running site (this run's server, a development
 * server): the link makes this browser compose the site with the local build, and a save shows after a reload.
 * Production's refusal is in site-server/src/previews/overrides.test.ts.
 */
const workspace = fileURLToPath(new URL('../../', import.meta.url));
const contentFile = `${workspace}legal/src/content/privacy.content.ts`;

let devRemote: ChildProcess | undefined;
let printed = '';
test.afterAll(() => {
  if (devRemote?.pid) process.kill(-devRemote.pid, 'SIGTERM');
});

/** Resolves once dev:remote has printed `pattern` `count` times. */
const printedTimes = (pattern: RegExp, count: number) =>
  expect
    .poll(() => printed.match(new RegExp(pattern, 'g'))?.length ?? 0, { timeout: 90_000 })
    .toBeGreaterThanOrEqual(count);

test('a remote from this machine replaces the live one for this browser, and a save shows after a reload', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(180_000);
  devRemote = spawn('pnpm', ['dev:remote', 'legal', '--against', baseURL!], { cwd: workspace, detached: true });
  devRemote.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  devRemote.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  await printedTimes(/Open http/, 1);
  const link = /Open (http\S+)/.exec(printed)![1]!;
  expect(link).toContain(`${baseURL}/__override?remote=legal&entry=`);

  const local = `http://127.0.0.1:${devPorts(process.env).remote('legal')}`;
  const fromLocal: string[] = [];
  page.on('request', (request) => request.url().startsWith(local) && fromLocal.push(request.url()));
  await page.goto(link);
  await expect(page).toHaveURL(/\/privacy$/);
  await expect(page.getByRole('complementary', { name: 'Local override' })).toContainText(
    'Local: legal from 127.0.0.1',
  );
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  expect(fromLocal).toContain(`${local}/remoteEntry.js`);

  const original = readFileSync(contentFile, 'utf8');
  try {
    writeFileSync(contentFile, original.replace("title: 'Privacy Policy'", "title: 'Privacy Policy, local'"));
    await printedTimes(/rebuilt: reload the page/, 1);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy, local' })).toBeVisible();
  } finally {
    writeFileSync(contentFile, original);
  }

  // Another browser, and this one once the override ends, get the live site.
  await page.getByRole('link', { name: 'end', exact: true }).click();
  await expect(page.getByRole('complementary', { name: 'Local override' })).toHaveCount(0);
  const before = fromLocal.length;
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  expect(fromLocal.length).toBe(before);
});

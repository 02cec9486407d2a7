import { execFileSync } from 'node:child_process';
import { expect, test, type Page } from '@playwright/test';
import { phonePage } from '../phone.ts';
import { dataDir } from '../playwright.config.ts';
import { nonceOf, ticketRows } from '../field-doors.ts';

/** What a team reads: `pnpm --filter api rum [args]` on the database the server under test writes. */
function rum(args: string[]): string {
  return execFileSync('pnpm', ['--silent', '--filter', 'api', 'rum', ...args, '--since', '30m'], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
}

/** A hard page view, left once the vitals library has loaded (it loads when the page is idle). */
async function view(page: Page, path: string) {
  const vitals = page.waitForResponse(/\/web-vitals-[^/]+\.js$/, { timeout: 10_000 });
  await page.goto(path);
  await expect(page.locator('html[data-ready="true"]')).toBeAttached();
  await vitals;
  await page.locator('h1').first().click(); // an interaction, so that INP has one
}

/** Counts the beacons a tab sends, across its page loads (a beacon sent while a page unloads is not seen as a request). */
async function countBeacons(page: Page) {
  await page.addInitScript(() => {
    const send = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url, data) => {
      sessionStorage.setItem('beacons', String(Number(sessionStorage.getItem('beacons') ?? 0) + 1));
      return send(url, data);
    };
  });
  return () => page.evaluate(() => Number(sessionStorage.getItem('beacons') ?? 0));
}

test('views of three routes of two remotes reach the teams, with the remote, its version and the vitals', async ({
  page,
}) => {
  const manifest = (await (await page.request.get('/remotes.json')).json()) as Record<string, string>;
  const versionOf = (entry: string) => /[?&]v=([^&]+)/.exec(entry)?.[1] ?? entry.split('/').at(-2)!;
  for (const path of ['/', '/test', '/vendor']) await view(page, path);
  await page.goto('/privacy');

  const vendor = new RegExp(
    `vendor\\s+${versionOf(manifest.vendor!)}\\s+/vendor\\s+[1-9]\\d*\\s+\\d.*(ms|s) (Good|Needs improvement|Poor)`,
  );
  await expect.poll(() => rum(['--remote', 'vendor']), { timeout: 10_000 }).toMatch(vendor);
  const consumer = rum(['--remote', 'consumer']);
  expect(consumer).toMatch(new RegExp(`consumer\\s+${versionOf(manifest.consumer!)}\\s+/test\\s+[1-9]`));
  expect(consumer).toMatch(new RegExp(`consumer\\s+${versionOf(manifest.consumer!)}\\s+/\\s+[1-9]`));
  // LCP, FCP and TTFB of the vendor view were measured (a value, not "-").
  const header = rum(['--remote', 'vendor'])
    .split('\n')
    .find((line) => line.startsWith('remote'))!;
  const row = rum(['--remote', 'vendor'])
    .split('\n')
    .find((line) => vendor.test(line))!;
  for (const metric of ['LCP p75', 'FCP p75', 'TTFB p75']) {
    expect(row.slice(header.indexOf(metric), header.indexOf(metric) + 2).trim(), metric).toMatch(/^\d/);
  }
});

test('an error thrown in a page shows in `rum errors` under the remote that owns the page', async ({ page }) => {
  const message = `Field journey error ${Date.now()}`;
  await page.goto('/privacy');
  await expect(page.locator('html[data-ready="true"]')).toBeAttached();
  await page.evaluate((text) => {
    setTimeout(() => {
      throw new Error(text);
    });
    setTimeout(() => void Promise.reject(new Error(`${text} (a promise)`)));
  }, message);
  await page.waitForTimeout(300);
  await page.goto('/terms');
  await expect
    .poll(() => rum(['errors', '--remote', 'legal']), { timeout: 10_000 })
    .toContain(`${message} (a promise)`);
  const lines = rum(['errors', '--remote', 'legal']).split('\n');
  expect(lines.find((line) => line.includes(message) && !line.includes('promise'))).toMatch(
    /^\s+1\s+legal\s+Uncaught Error: Field journey error/,
  );
});

test('with Global Privacy Control on, nothing is sent; without it, the same visit sends its beacons', async ({
  browser,
}) => {
  const visit = async (privacyControl: boolean) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    if (privacyControl) {
      await page.addInitScript(() =>
        Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }),
      );
    }
    const beacons = await countBeacons(page);
    for (const path of ['/vendor', '/privacy', '/terms']) {
      await page.goto(path);
      await expect(page.locator('html[data-ready="true"]')).toBeAttached();
    }
    const sent = await beacons();
    await context.close();
    return sent;
  };
  expect(await visit(true)).toBe(0);
  expect(await visit(false)).toBeGreaterThanOrEqual(2);
});

/** The goal rows the API stored for these views' tickets: what an experiment counts, one conversion per ticket. */
const goalRows = (nonces: string[]) => ticketRows(dataDir, nonces).filter((row) => row.goal !== null);

test("a click on the vendor portal's link counts as its view's goal, with or without JavaScript, from first paint on a phone", async ({
  browser,
}) => {
  const nonces: string[] = [];
  for (const javaScriptEnabled of [true, false]) {
    // The phone profile (4x CPU, 150 ms, 1.6 Mbit/s), acting as soon as the link is there: the ping is its own HTML.
    const page = await phonePage(browser, { javaScriptEnabled });
    const context = page.context();
    await page.goto('/vendor', { waitUntil: 'commit' });
    const link = page.getByRole('link', { name: /Become a vendor/ });
    for (let click = 0; click < 2; click += 1) {
      const ping = page.waitForResponse((response) => response.url().includes('/api/rum/goal/portal-click'));
      const opened = context.waitForEvent('page');
      await link.click();
      expect((await ping).status()).toBe(204);
      await (await opened).close();
    }
    const ticket = (await context.cookies()).find((cookie) => cookie.name === 'rum_vendor')!;
    nonces.push(nonceOf(ticket.value));
    await context.close();
  }
  // A ping without a ticket (anyone can send one) is answered and counts nothing.
  const forged = await browser.newContext();
  const answer = await forged.request.post('/api/rum/goal/portal-click', {
    headers: { 'content-type': 'text/ping', 'ping-from': 'http://127.0.0.1/vendor' },
    data: 'PING',
  });
  expect(answer.status()).toBe(204);
  await forged.close();
  // Two clicks a view, one goal of each view kept (with the view's ticket): one conversion for each view.
  await expect.poll(() => goalRows(nonces).length).toBe(2);
  const rows = goalRows(nonces);
  expect(new Set(rows.map((row) => row.ticket))).toEqual(new Set(nonces));
  expect(rows.every((row) => row.goal === 'portal-click' && row.counted === 0)).toBe(true);
});

test('each view counts with its own ticket: two tabs of one page and a reload, each left while another page of the remote loads', async ({
  browser,
}) => {
  const context = await browser.newContext();
  const [first, second] = [await context.newPage(), await context.newPage()];
  /** Loads `path` in `page` until it runs, and the nonce of the ticket its answer gave the view. */
  const load = async (page: Page, path: string | 'reload') => {
    const answer = path === 'reload' ? await page.reload() : await page.goto(path);
    await expect(page.locator('html[data-ready="true"]')).toBeAttached();
    const ticket = /view-ticket;desc="([^"]+)"/.exec(answer!.headers()['server-timing'] ?? '')?.[1];
    expect(ticket, `${path}: the answer's view ticket`).toBeDefined();
    return nonceOf(ticket!);
  };
  const nonces = [await load(first, '/privacy'), await load(second, '/privacy'), await load(first, 'reload')];
  // Each view is left while a page of the same remote loads: its beacon goes after that page's answer set the cookie.
  await load(second, '/terms');
  await load(first, '/terms');
  expect(new Set(nonces).size).toBe(3);
  await expect
    .poll(() => ticketRows(dataDir, nonces).filter((row) => row.counted === 1 && row.goal === null).length)
    .toBe(3);
  await context.close();
});

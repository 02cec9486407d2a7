import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { baseURL } from '../playwright.config.ts';
import { layoutShiftsOf, watchLayoutShifts } from '../layout-shifts.ts';
import { firstContentfulPaint } from '../phone.ts';
import { expect, test } from './support.ts';

/**
 * Nothing on the landing page moves by itself while it loads and hydrates (CLS below 0.01, Google's "good" is 0.1),
 * at every width the carousel has a layout for, with and without reduced motion. The hero's carousel is laid out by
 * the server for phones and again by react-slick on wider screens: the case this guards.
 */
const widths = [375, 768, 1024, 1280, 1920];

for (const width of widths) {
  for (const reducedMotion of ['no-preference', 'reduce'] as const) {
    test(`/ at ${width} px (${reducedMotion} motion): no layout shift while it loads`, async ({ browser }) => {
      const context = await browser.newContext({ viewport: { width, height: 800 }, reducedMotion });
      const page = await context.newPage();
      await page.addInitScript(watchLayoutShifts);
      await page.goto('/');
      await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
      // Past the carousel's first move by itself (autoplay, 3 s after it starts) and anything late.
      await page.waitForTimeout(3_500);
      const shifts = await layoutShiftsOf(page);
      const total = shifts.reduce((sum, shift) => sum + shift.value, 0);
      const said = shifts.map((shift) => `${shift.value.toFixed(4)} at ${shift.at} ms: ${shift.moved.join('; ')}`);
      expect(total, `layout shifts: ${said.join(' | ') || 'none'}`).toBeLessThan(0.01);
      await context.close();
    });
  }
}

/**
 * The page in two parts, the second a second later, cut inside its markup (before the second store button): what a
 * slow line or a busy phone's parser can do. Everything else comes from the site as it is.
 */
async function pageInTwoParts(cutBefore: string, pauseMs: number) {
  const server = http.createServer(async (request, response) => {
    const answer = await fetch(`${baseURL}${request.url}`, { headers: { accept: request.headers.accept ?? '*/*' } });
    const headers = Object.fromEntries(
      [...answer.headers].filter(
        ([name]) => !['content-length', 'content-encoding', 'transfer-encoding'].includes(name),
      ),
    );
    response.writeHead(answer.status, headers);
    const body = Buffer.from(await answer.arrayBuffer());
    const cut = request.url === '/' ? body.indexOf(cutBefore) : -1;
    if (cut < 0) return response.end(body);
    response.write(body.subarray(0, cut));
    setTimeout(() => response.end(body.subarray(cut)), pauseMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

test('/ at 375 px: the first paint waits for the whole of the page’s markup, however it arrives, and nothing moves', async ({
  browser,
}) => {
  const pauseMs = 1_000;
  const site = await pageInTwoParts('Get it on', pauseMs);
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(watchLayoutShifts);
    await page.goto(site.url);
    // Waited for: the load event can come before the first frame is drawn (CI: read at once, it was not there yet).
    const firstPaint = await firstContentfulPaint(page);
    // Painted half a page (the first store button alone on its line, the second squeezed beside it) before the rest
    // came, when the first paint waited for the markup's first element rather than its end.
    expect(firstPaint, 'the first paint came after the second part of the page').toBeGreaterThan(pauseMs);
    await page.waitForTimeout(500);
    expect(await layoutShiftsOf(page), 'layout shifts').toEqual([]);
  } finally {
    await context.close();
    site.close();
  }
});

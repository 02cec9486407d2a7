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
      await page.addInitScript(() => {
        const shifts: number[] = [];
        (window as unknown as { layoutShifts: number[] }).layoutShifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
            if (!entry.hadRecentInput) shifts.push(entry.value);
          }
        }).observe({ type: 'layout-shift', buffered: true });
      });
      await page.goto('/');
      await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
      // Past the carousel's first move by itself (autoplay, 3 s after it starts) and anything late.
      await page.waitForTimeout(3_500);
      const shifts = await page.evaluate(() => (window as unknown as { layoutShifts: number[] }).layoutShifts);
      const total = shifts.reduce((sum, value) => sum + value, 0);
      expect(total, `layout shifts: ${shifts.map((value) => value.toFixed(4)).join(', ') || 'none'}`).toBeLessThan(
        0.01,
      );
      await context.close();
    });
  }
}

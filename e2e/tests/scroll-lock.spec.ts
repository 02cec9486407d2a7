import type { Page } from '@playwright/test';
import { expect, settledScrollY, test } from './support.ts';

const scrollY = (page: Page) => page.evaluate(() => Math.round(window.scrollY));
const cardTop = (page: Page) =>
  page.getByRole('region', { name: 'Story card' }).evaluate((card) => Math.round(card.scrollTop));
const status = (page: Page) => page.getByRole('status').filter({ hasText: 'Page scrolling' });

async function wheelUntilLocked(page: Page) {
  await page.mouse.move(100, 400);
  for (let i = 0; i < 20 && !(await status(page).textContent())?.includes('locked'); i++) {
    await page.mouse.wheel(0, 250);
    await page.waitForTimeout(150);
  }
  await expect(status(page)).toHaveText('Page scrolling is locked');
}

test.describe('scroll-lock demo', () => {
  test('locks the page on the middle section, scrolls the card instead, and releases at its bottom', async ({
    page,
  }) => {
    await page.goto('/test');
    await expect(status(page)).toHaveText('Page scrolling is free');
    await wheelUntilLocked(page);

    const lockedAt = await scrollY(page);
    await page.mouse.wheel(0, 300);
    await expect.poll(() => cardTop(page)).toBeGreaterThan(0);
    expect(await scrollY(page)).toBe(lockedAt);

    for (let i = 0; i < 40 && (await status(page).textContent())?.includes('locked'); i++) {
      await page.mouse.wheel(0, 300);
      await page.waitForTimeout(80);
    }
    await expect(status(page)).toHaveText('Page scrolling is free');
    await page.mouse.wheel(0, 400);
    await expect.poll(() => scrollY(page)).toBeGreaterThan(lockedAt);
  });

  test('keyboard scrolling moves the card while the page is locked', async ({ page }) => {
    await page.goto('/test');
    await wheelUntilLocked(page);
    const lockedAt = await scrollY(page);
    const before = await cardTop(page);
    await page.locator('body').focus();
    await page.keyboard.press('PageDown');
    await expect.poll(() => cardTop(page)).toBeGreaterThan(before);
    expect(await scrollY(page)).toBe(lockedAt);
  });

  test('leaving the page while locked never leaves the next page stuck', async ({ page }) => {
    await page.goto('/test');
    await wheelUntilLocked(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQs' }).click();
    await expect(page).toHaveURL('/#faqs');
    await expect(page.locator('#faqs')).toBeInViewport();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).overflow)).toBe('visible');
    const before = await settledScrollY(page);
    await page.mouse.wheel(0, -500);
    await expect.poll(() => scrollY(page)).toBeLessThan(before);
  });
});

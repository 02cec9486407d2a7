import { expect, test } from './support.ts';

test.use({ viewport: { width: 375, height: 740 } });

test('at 375 px the menu opens and closes with its toggle, closes on an item and on Escape', async ({ page }) => {
  await page.goto('/privacy');
  const toggle = page.getByRole('button', { name: 'Open menu' });
  const menu = page.getByRole('navigation', { name: 'Main' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(toggle).toHaveAttribute('aria-controls', 'site-menu');
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();

  await toggle.click();
  const close = page.getByRole('button', { name: 'Close menu' });
  await expect(close).toHaveAttribute('aria-expanded', 'true');
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeVisible();
  await close.click();
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();

  await toggle.click();
  await menu.getByRole('link', { name: 'Home' }).focus();
  await page.keyboard.press('Escape');
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Open menu' })).toBeFocused();

  await toggle.click();
  await menu.getByRole('link', { name: 'Home' }).click();
  await expect(page).toHaveURL('/');
  await expect(page.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
});

test('at 1280 px the menu is always shown and there is no toggle', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/privacy');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQs' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Open menu' })).toBeHidden();
});

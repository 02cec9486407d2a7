import { accessibleNode } from '../accessibility-tree.ts';
import { expect, test } from './support.ts';

test.use({ viewport: { width: 375, height: 740 } });

test('at 375 px the menu opens and closes with its toggle, closes on an item and on Escape', async ({ page }) => {
  await page.goto('/privacy');
  const toggle = page.getByRole('button', { name: 'Menu' });
  const menu = page.getByRole('navigation', { name: 'Main' });
  const icon = () => toggle.locator('svg:visible').evaluate((svg) => svg.innerHTML);
  const menuIcon = await icon();
  expect(await accessibleNode(toggle)).toMatchObject({ role: 'button', name: 'Menu', expanded: false });
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();

  await toggle.click();
  expect(await accessibleNode(toggle)).toMatchObject({ name: 'Menu', expanded: true });
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeVisible();
  expect(await icon(), 'the close icon').not.toBe(menuIcon);
  await toggle.click();
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();
  expect(await accessibleNode(toggle)).toMatchObject({ expanded: false });
  expect(await icon()).toBe(menuIcon);

  await toggle.click();
  await menu.getByRole('link', { name: 'Home' }).focus();
  await page.keyboard.press('Escape');
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();
  await expect(toggle).toBeFocused();

  await toggle.click();
  await menu.getByRole('link', { name: 'Home' }).click();
  await expect(page).toHaveURL('/');
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();
  expect(await accessibleNode(toggle)).toMatchObject({ expanded: false });

  // A section of the same page: the menu closes and the section is not hidden under it.
  await toggle.click();
  await menu.getByRole('link', { name: 'FAQs' }).click();
  await expect(page).toHaveURL('/#faqs');
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();
});

test('at 375 px a tap outside the open menu closes it', async ({ page }) => {
  await page.goto('/privacy');
  await page.getByRole('button', { name: 'Menu' }).click();
  const menu = page.getByRole('navigation', { name: 'Main' });
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeVisible();
  await page.mouse.click(200, 600);
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();
});

test('at 1280 px the menu is always shown and there is no toggle', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/privacy');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQs' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Menu' })).toBeHidden();
});

test('at 375 px Tab from the open menu’s last item closes it, and focus goes on into the page', async ({ page }) => {
  await page.goto('/privacy');
  const toggle = page.getByRole('button', { name: 'Menu' });
  const menu = page.getByRole('navigation', { name: 'Main' });
  await toggle.click();
  await menu.getByRole('link', { name: 'FAQs' }).focus();
  await page.keyboard.press('Tab');
  await expect(menu.getByRole('link', { name: 'FAQs' })).toBeHidden();
  expect(await accessibleNode(toggle)).toMatchObject({ expanded: false });
  expect(await page.evaluate(() => document.activeElement?.closest('nav[popover]'))).toBeNull();
  expect(await page.evaluate(() => document.activeElement === document.body)).toBe(false);
});

test('at 375 px a section chosen in the menu is where the next Tab goes on from', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'FAQs' }).press('Enter');
  await expect(page).toHaveURL('/#faqs');
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => ({
    inFaqs: Boolean(document.activeElement?.closest('#faqs')),
    text: document.activeElement?.textContent,
  }));
  expect(focused, 'the first question of the FAQ').toEqual({
    inFaqs: true,
    text: expect.stringContaining('How does the app simplify gifting?'),
  });
});

test('back from a page a link led to gives focus to that link again', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
  const link = page.getByRole('link', { name: 'Become a vendor' });
  await link.focus();
  await link.press('Enter');
  await expect(page).toHaveURL('/vendor');
  await expect(page.locator('main')).toBeFocused();
  await page.goBack();
  await expect(page).toHaveURL('/');
  await expect(page.getByRole('link', { name: 'Become a vendor' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Explore corporate gifting' })).toBeFocused();
});

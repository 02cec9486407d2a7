import type { Locator, Page } from '@playwright/test';
import { accessibleNode } from '../accessibility-tree.ts';
import { expect, settledScrollY, test } from './support.ts';

const currentSlide = (carousel: Locator) =>
  carousel.locator('.slick-slide.slick-current, [data-current="true"]').first().getAttribute('data-index');

async function slidesSeen(carousel: Locator, page: Page, durationMs: number) {
  const seen = new Set<string | null>();
  for (let waited = 0; waited <= durationMs; waited += 500) {
    seen.add(await currentSlide(carousel));
    await page.waitForTimeout(500);
  }
  return seen.size;
}

test.describe('landing page', () => {
  test('shows every section of the spec, in order, with no console errors', async ({ page, consoleErrors }) => {
    await page.goto('/');
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1 })).toContainText('The easiest way to');
    const headings = await main.getByRole('heading', { level: 2 }).allTextContents();
    const expected = [
      'Connect and Celebrate Together',
      'How Gifting Is Made Easy',
      'Features',
      'Sell your gifts to people who are looking for them',
      'Corporate gifting your team will remember',
      'Connect with Trusted Groups',
      'Plan Special Occasions',
      'Frequently Asked Questions',
      'Start gifting today',
    ];
    expect(headings).toEqual(expected);

    for (const phrase of [
      'Explore Gift Ideas',
      'Personalize Relations',
      'Create Custom Groups',
      'Send a Thoughtful Gift',
      'Organize Special Occasions',
    ]) {
      await expect(page.getByRole('group', { name: 'taglines' }).getByText(phrase).first()).toBeAttached();
    }
    await expect(page.getByRole('group', { name: 'app screens' }).getByAltText('slider').first()).toBeVisible();
    const steps = page.locator('#workssection li');
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(0)).toContainText('Select a Category');
    await expect(steps.nth(1)).toContainText('Choose Your Relation');
    await expect(steps.nth(2)).toContainText('Send with Love');
    await expect(
      page.locator('#features').getByRole('list', { name: 'Choose a feature' }).getByRole('link'),
    ).toHaveText(['Gift Ideas', 'Manage Relations', 'Create Groups', 'Plan Occasions', 'Send Gifts']);
    await expect(main.getByRole('link', { name: 'Become a vendor' })).toHaveAttribute('href', '/vendor');
    await expect(main.getByRole('link', { name: 'Explore corporate gifting' })).toHaveAttribute('href', '/business');
    await expect(page.locator('#faqs summary')).toHaveCount(6);
    const storeLinks = main.getByRole('link', { name: /App Store|Google Play/ });
    await expect(storeLinks).toHaveCount(4);
    for (const link of await storeLinks.all()) {
      await expect(link).toHaveAttribute('href', /^https:\/\/(apps\.apple\.com|play\.google\.com)\//);
      await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    }
    expect(consoleErrors).toEqual([]);
  });

  test('the store buttons change their icon on hover and on keyboard focus', async ({ page }) => {
    await page.goto('/');
    const appStore = page
      .getByRole('main')
      .getByRole('link', { name: /App Store/ })
      .first();
    const filledIcon = appStore.locator('span').nth(1);
    await expect(filledIcon).toBeHidden();
    await appStore.hover();
    await expect(filledIcon).toBeVisible();
    await page.mouse.move(0, 0);
    await expect(filledIcon).toBeHidden();
    await appStore.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    await expect(filledIcon).toBeVisible();
  });

  test('both moving parts of the hero advance by themselves, and one control stops and restarts both', async ({
    page,
  }) => {
    test.setTimeout(60_000);
    await page.goto('/');
    const parts = [page.getByRole('group', { name: 'taglines' }), page.getByRole('group', { name: 'app screens' })];
    const pause = page.getByRole('checkbox', { name: 'Pause taglines and app screens' });
    await expect(pause).toHaveCount(1);
    const seen = () => Promise.all(parts.map((part) => slidesSeen(part, page, 4000)));
    for (const count of await seen()) expect(count, 'moves').toBeGreaterThan(1);
    await pause.check();
    await page.waitForTimeout(600);
    expect(await seen(), 'paused').toEqual([1, 1]);
    await pause.uncheck();
    for (const count of await seen()) expect(count, 'plays again').toBeGreaterThan(1);
  });

  test('the second line of the title is set as large as the first, and keeps its place while it changes', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto('/');
    const title = page.getByRole('heading', { level: 1 });
    const taglines = page.getByRole('group', { name: 'taglines' });
    const size = (locator: typeof title) => locator.evaluate((element) => getComputedStyle(element).fontSize);
    expect(await size(taglines.locator('[data-current="true"]'))).toBe(await size(title));
    const intro = page.getByText(/^Pick a gift/);
    const places = new Set<number>();
    for (let i = 0; i < 8; i++) {
      places.add(Math.round((await intro.boundingBox())!.y));
      await page.waitForTimeout(500);
    }
    expect([...places]).toHaveLength(1);
  });

  test('nothing moves by itself when the visitor prefers reduced motion, until they unpause', async ({ page }) => {
    test.setTimeout(45_000);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto('/');
    const taglines = page.getByRole('group', { name: 'taglines' });
    const screens = page.getByRole('group', { name: 'app screens' });
    const pause = page.getByRole('checkbox', { name: 'Pause taglines and app screens' });
    await expect(pause).toBeChecked();
    expect(await slidesSeen(taglines, page, 3500)).toBe(1);
    expect(await slidesSeen(screens, page, 500)).toBe(1);
    await pause.uncheck();
    expect(await slidesSeen(screens, page, 4000)).toBeGreaterThan(1);
  });

  test('at 375 px the image carousel shows one slide with 63 px of the neighbours', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto('/');
    const list = page.getByRole('group', { name: 'app screens' }).locator('.slick-list');
    await expect(list).toHaveCSS('padding-left', '63px');
    const slideWidth = await list
      .locator('.slick-slide.slick-current')
      .evaluate((slide) => slide.getBoundingClientRect().width);
    const listWidth = await list.evaluate((element) => element.getBoundingClientRect().width);
    expect(Math.round(slideWidth)).toBe(Math.round(listWidth - 2 * 63));
  });

  test('the FAQ opens and closes each answer, with plus and minus', async ({ page }) => {
    await page.goto('/#faqs');
    const question = page.locator('#faqs summary', { hasText: 'Can I send gifts to a group?' });
    const symbol = () => question.locator('svg:visible').evaluate((icon) => icon.innerHTML);
    const plus = await symbol();
    expect(await accessibleNode(question)).toMatchObject({ name: 'Can I send gifts to a group?', expanded: false });
    await expect(question.getByRole('heading', { level: 3 })).toBeVisible();
    await question.click();
    expect(await accessibleNode(question)).toMatchObject({ expanded: true });
    await expect(page.getByText('Yes. Create a group for family')).toBeVisible();
    const minus = await symbol();
    expect(minus).not.toBe(plus);
    await question.press('Enter');
    expect(await accessibleNode(question)).toMatchObject({ expanded: false });
    await expect(page.getByText('Yes. Create a group for family')).toBeHidden();
    expect(await symbol()).toBe(plus);
  });

  test('hash links land on their sections, on load and from the header on another page', async ({ page }) => {
    await page.goto('/#faqs');
    await expect(page.locator('#faqs')).toBeInViewport();
    await page.goto('/privacy');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'How It Works' }).click();
    await expect(page).toHaveURL('/#workssection');
    await expect(page.getByRole('heading', { name: 'How Gifting Is Made Easy' })).toBeInViewport();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Features' }).click();
    await expect(page).toHaveURL('/#features');
    await expect(page.getByRole('heading', { name: 'Features', exact: true })).toBeInViewport();
    const headingTop = await page
      .getByRole('heading', { name: 'Features', exact: true })
      .evaluate((element) => element.getBoundingClientRect().top);
    expect(headingTop).toBeGreaterThanOrEqual(68);
  });

  test('scrolling highlights the step and the feature in view; choosing a feature shows it', async ({ page }) => {
    await page.goto('/');
    const steps = page.locator('#workssection li');
    await steps.nth(2).evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await expect(steps.nth(2)).toHaveAttribute('aria-current', 'step');
    await expect(steps.nth(0)).not.toHaveAttribute('aria-current', 'step');

    const features = page.locator('#features');
    await features.getByRole('link', { name: 'Create Groups' }).click();
    await expect(features.getByRole('heading', { level: 3, name: 'Create Groups' })).toBeVisible();
    await expect(features.getByRole('link', { name: 'Create Groups' })).toHaveAttribute('aria-current', 'true');
    await settledScrollY(page);

    await page.mouse.move(640, 400);
    for (let i = 0; i < 8; i++) await page.mouse.wheel(0, 400);
    await expect(features.getByRole('heading', { level: 3, name: 'Send Gifts' })).toBeVisible();
    await expect(features.getByRole('link', { name: 'Create Groups' })).toHaveAttribute('aria-current', 'false');
  });

  test('the animation code loads once the visitor scrolls, then the highlights slide into view', async ({ page }) => {
    const animationCode: string[] = [];
    page.on('request', (request) => {
      if (/animated-parts-[^/]*\.js$/.test(request.url())) animationCode.push(request.url());
    });
    await page.goto('/');
    const highlight = page.locator('[data-reveal]').first();
    await page.waitForTimeout(1000);
    expect(animationCode).toEqual([]);
    // Nothing is hidden before the animation code is there (a visitor may reach it first).
    await expect(highlight).toHaveCSS('opacity', '1');

    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, 300);
    await expect.poll(() => animationCode.length).toBe(1);
    // Still below the screen: hidden now, for its entrance.
    await expect(highlight).toHaveCSS('opacity', '0');
    // The still highlight is swapped for the animated one in a transition: scroll to whichever is there.
    await expect(async () => {
      await highlight.scrollIntoViewIfNeeded({ timeout: 1000 });
      await expect(highlight).toHaveCSS('opacity', '1', { timeout: 1000 });
    }).toPass();
  });

  test('when the animation code cannot load, the highlights are shown where they would have slid in', async ({
    page,
  }) => {
    await page.route(/animated-parts-[^/]*\.js$/, (route) => route.abort());
    await page.goto('/');
    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, 300);
    const highlight = page.locator('[data-reveal]').first();
    await highlight.scrollIntoViewIfNeeded();
    await expect(highlight).toHaveCSS('opacity', '1');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  });

  test('the teasers lead to the vendor and business pages', async ({ page }) => {
    await page.goto('/');
    await page.getByRole('link', { name: 'Explore corporate gifting' }).click();
    await expect(page).toHaveURL('/business');
    await expect(page.getByRole('contentinfo')).toBeVisible();
  });
});

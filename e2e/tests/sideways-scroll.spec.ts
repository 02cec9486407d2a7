import type { Page } from '@playwright/test';
import { examplePagePaths } from '../example-pages.ts';
import { expect, test } from './support.ts';

/**
 * The page never scrolls sideways: at every width a visitor's screen may have, on every route, the document is no
 * wider than the viewport after hydration and after every entrance animation has run (scrolled to the bottom, step
 * by step, and back), with the menu open, and in each state of the delete form.
 */
const widths = [320, 375, 768, 1280];

/** How much wider than the viewport the document is, and the widest elements that stick out, to name the culprit. */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const over = document.documentElement.scrollWidth - width;
    const culprits = [...document.querySelectorAll('body *')]
      .filter((element) => {
        if (element.getBoundingClientRect().right <= width + 1) return false;
        // Inside something that clips (a carousel's track) it cannot widen the page.
        for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
          if (getComputedStyle(parent).overflowX !== 'visible') return false;
        }
        return true;
      })
      .slice(0, 3)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${String(element.className)} (${Math.round(element.getBoundingClientRect().right)} px)`,
      );
    return { over, culprits };
  });
}

async function expectNoSidewaysScroll(page: Page, when: string) {
  const { over, culprits } = await overflow(page);
  expect(over, `${when}: the page is ${over} px wider than the screen; sticking out: ${culprits.join(', ')}`).toBe(0);
}

/** Every card and section of the page (after scrolling through it) 16 px or more from the screen's edges. */
async function expectCardsOffTheEdges(page: Page) {
  const { cards, touching } = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const clipped = (element: Element) => {
      for (let parent = element.parentElement; parent; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX !== 'visible') return true;
      }
      return false;
    };
    // A card is a box a visitor sees as one (a border, a shadow or a background of its own); text counts too.
    const isCard = (element: Element) => {
      const style = getComputedStyle(element);
      return (
        style.borderLeftWidth !== '0px' ||
        style.boxShadow !== 'none' ||
        (style.backgroundColor !== 'rgba(0, 0, 0, 0)' && style.backgroundColor !== style.color) ||
        style.backgroundImage !== 'none'
      );
    };
    const cards = [...document.querySelectorAll('main *')].filter((element) => {
      const box = element.getBoundingClientRect();
      // Full-width bands (a tinted section, the footer) are backgrounds; their content is what is checked.
      const isText = ['P', 'H1', 'H2', 'H3', 'LI', 'LABEL'].includes(element.tagName);
      return (
        box.width > 0 && box.height >= 16 && box.width < width - 1 && (isCard(element) || isText) && !clipped(element)
      );
    });
    const touching = cards
      .filter((element) => {
        const box = element.getBoundingClientRect();
        return box.left < 16 - 0.5 || box.right > width - 16 + 0.5;
      })
      .slice(0, 5)
      .map((element) => {
        const box = element.getBoundingClientRect();
        return `${element.tagName.toLowerCase()}.${String(element.className)} (${Math.round(box.left)} to ${Math.round(box.right)} px)`;
      });
    return { cards: cards.length, touching };
  });
  expect(cards, 'cards and text found on the page').toBeGreaterThan(0);
  expect(touching, 'cards or text closer than 16 px to an edge').toEqual([]);
}

/**
 * Scrolls to the bottom a screen at a time, letting each part that comes into view run its entrance, and back. Only
 * the consumer's pages animate parts into view (framer-motion, `[data-reveal]`, `[data-motion]`): there each step
 * waits long enough for a part's entrance to start and the end for the longest to finish. Elsewhere a step waits two
 * frames, and the end for every CSS animation and transition the scroll started.
 */
async function scrollThrough(page: Page) {
  const animatesIntoView = await page.evaluate(async () => {
    const animated = document.querySelector('[data-reveal], [data-motion]') !== null;
    const frames = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight / 2) {
      window.scrollTo({ top: y, behavior: 'instant' });
      await (animated ? new Promise((resolve) => setTimeout(resolve, 120)) : frames());
    }
    await Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)));
    return animated;
  });
  // The longest entrance animation here takes under a second.
  if (animatesIntoView) await page.waitForTimeout(1000);
  await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
}

for (const width of widths) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    for (const path of [...examplePagePaths, '/no-such-page']) {
      // On a phone, the same load and scroll also show every card and section 16 px from the screen's edges.
      const title =
        width <= 375
          ? `${path} never scrolls sideways and keeps every card and section 16 px from the screen's edges`
          : `${path} never scrolls sideways`;
      test(title, async ({ page }) => {
        await page.goto(path);
        await expectNoSidewaysScroll(page, 'hydrated');
        await scrollThrough(page);
        await expectNoSidewaysScroll(page, 'after scrolling to the bottom and back');
        if (width <= 375) await expectCardsOffTheEdges(page);
      });
    }

    test('the open menu does not widen the page', async ({ page }) => {
      await page.goto('/');
      const toggle = page.getByRole('button', { name: 'Menu' });
      // From 768 px up the navigation is shown in the header: there is no menu to open.
      test.skip(!(await toggle.isVisible()), 'no menu toggle at this width');
      await toggle.click();
      await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link').first()).toBeVisible();
      await expectNoSidewaysScroll(page, 'menu open');
    });

    test('each state of the delete form fits the screen', async ({ page }) => {
      await page.goto('/delete-account');
      await expectNoSidewaysScroll(page, 'empty form');
      await page.getByLabel('Full Name').fill('Ann Lee');
      await page.getByLabel('Email Address').fill('ann@example.com');
      await page.getByRole('button', { name: 'Submit Request' }).click();
      await expect(page.locator('p[role="status"]')).toHaveText('Please fill in all fields.');
      await expectNoSidewaysScroll(page, 'with its error');
      await page.route('**/api/delete-account', (route) => route.fulfill({ status: 500, json: { error: 'boom' } }));
      await page.getByLabel('Full Name').fill('Ann Lee-Montgomery-Featherstonehaugh');
      await page.getByLabel('Email Address').fill('a.very.long.address.for.a.small.screen@example-gifting-company.com');
      await page.getByLabel('Reason for Deleting').fill('I no longer need it.');
      await page.getByRole('button', { name: 'Submit Request' }).click();
      await expect(page.locator('p[role="status"]')).not.toHaveText('Please fill in all fields.');
      await expectNoSidewaysScroll(page, 'after a failed submission');
      await page.unroute('**/api/delete-account');
      await page.getByLabel('Email Address').fill(`ann+${width}@example.com`);
      await page.getByRole('button', { name: 'Submit Request' }).click();
      await expect(page.getByRole('heading', { name: 'What happens next' })).toBeVisible();
      await expectNoSidewaysScroll(page, 'submitted');
    });
  });
}

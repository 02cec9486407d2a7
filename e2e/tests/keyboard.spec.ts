import type { Page } from '@playwright/test';
import { accessibleNode } from '../accessibility-tree.ts';
import { untilHydrated } from '../phone.ts';
import { expect, test } from './support.ts';

/** What a keyboard user sees of the focused element: its focus ring, its contrast, whether the header hides it. */
interface FocusReport {
  label: string;
  ringWidth: number;
  ringContrast: number;
  textContrast: number;
  largeText: boolean;
  obscured: boolean;
}

/**
 * Runs in the page. Contrast per WCAG 2.x relative luminance; the background is the first opaque one up the
 * tree, and for a gradient the worst of its colour stops.
 */
function inspectFocus(): FocusReport | null {
  const element = document.activeElement as HTMLElement | null;
  if (!element || element === document.body) return null;
  const parse = (color: string) => {
    const parts = color.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 1];
    return { rgb: parts.slice(0, 3), alpha: parts[3] ?? 1 };
  };
  const luminance = (rgb: number[]) => {
    const [r, g, b] = rgb.map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const contrast = (a: number[], b: number[]) => {
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (light! + 0.05) / (dark! + 0.05);
  };
  const backgrounds = (from: Element | null): number[][] => {
    for (let node = from; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      const stops = style.backgroundImage.match(/rgba?\([^)]+\)|#[0-9a-f]{3,6}/gi);
      if (stops && style.backgroundImage.includes('gradient')) return stops.map((stop) => parse(stop).rgb);
      const { rgb, alpha } = parse(style.backgroundColor);
      if (alpha > 0.9) return [rgb];
    }
    return [[255, 255, 255]];
  };
  const style = getComputedStyle(element);
  const outline = style.outlineStyle !== 'none' ? parseFloat(style.outlineWidth) : 0;
  const shadow = style.boxShadow !== 'none' ? 2 : 0;
  const ringColor = parse(outline ? style.outlineColor : (style.boxShadow.match(/rgba?\([^)]+\)/)?.[0] ?? '')).rgb;
  // The ring is drawn outside the element: it must stand out against what surrounds the element.
  const around = backgrounds(element.parentElement);
  const behind = backgrounds(element);
  const text = parse(style.color).rgb;
  const fontSize = parseFloat(style.fontSize);
  const rect = element.getBoundingClientRect();
  // Hidden under the sticky header: what is drawn at the element's centre belongs to the header instead.
  const header = document.querySelector('header');
  const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
  return {
    label: `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}"`,
    ringWidth: Math.max(outline, shadow),
    ringContrast: Math.min(...around.map((color) => contrast(ringColor, color))),
    textContrast: element.textContent?.trim() ? Math.min(...behind.map((color) => contrast(text, color))) : 21,
    largeText: fontSize >= 24 || (fontSize >= 18.66 && Number(style.fontWeight) >= 700),
    obscured: Boolean(header && hit && header.contains(hit) && !header.contains(element)),
  };
}

/**
 * Lets colour transitions (shortened, not removed, under reduced motion) reach the focused state: a fixed wait read
 * them half-way on a busy machine (ring contrast 1.18 once, with release checks running beside the suite).
 */
async function settledTransitions(page: Page) {
  await page.waitForTimeout(60);
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation instanceof CSSTransition)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
}

/** Tabs through the whole page and reports every stop. */
async function tabThrough(page: Page, limit = 80): Promise<FocusReport[]> {
  const reports: FocusReport[] = [];
  await page.locator('body').focus();
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    await settledTransitions(page);
    const report = await page.evaluate(inspectFocus);
    if (!report) break;
    if (reports.length && report.label === reports[0]!.label) break;
    reports.push(report);
  }
  return reports;
}

const pages = ['/', '/vendor', '/business', '/team-gifting', '/privacy', '/delete-account', '/no-such-page'];

for (const width of [375, 1280]) {
  test.describe(`keyboard at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    for (const path of pages) {
      test(`${path}: every stop has a visible focus ring with enough contrast and is never under the header`, async ({
        page,
      }) => {
        test.setTimeout(60_000);
        await page.emulateMedia({ reducedMotion: 'reduce' });
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
        await page.waitForLoadState('networkidle');
        const stops = await tabThrough(page);
        expect(stops.length, 'focusable controls').toBeGreaterThan(3);
        expect(stops[0]!.label).toContain('Skip to main content');
        const problems = stops.flatMap((stop) => [
          ...(stop.ringWidth < 2 ? [`${stop.label}: no focus ring`] : []),
          ...(stop.ringContrast < 3 ? [`${stop.label}: ring contrast ${stop.ringContrast.toFixed(2)}`] : []),
          ...(stop.textContrast < (stop.largeText ? 3 : 4.5)
            ? [`${stop.label}: focused text contrast ${stop.textContrast.toFixed(2)}`]
            : []),
          ...(stop.obscured ? [`${stop.label}: hidden under the sticky header`] : []),
        ]);
        expect(problems).toEqual([]);
      });
    }
  });
}

test('hovered links and buttons keep AA text contrast', async ({ page }) => {
  test.setTimeout(60_000);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const problems: string[] = [];
  for (const path of ['/', '/business', '/delete-account']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    await page.waitForLoadState('networkidle');
    for (const control of await page.locator('a:visible, button:visible').all()) {
      // Controls drawn over by something else (slides off to the side) cannot be hovered by anyone.
      const hovered = await control.hover({ timeout: 2_000 }).then(
        () => true,
        () => false,
      );
      if (!hovered) continue;
      await control.evaluate((element) => (element as HTMLElement).focus({ preventScroll: true }));
      await settledTransitions(page);
      const report = await page.evaluate(inspectFocus);
      if (report && report.textContrast < (report.largeText ? 3 : 4.5)) {
        problems.push(`${path} ${report.label}: hover contrast ${report.textContrast.toFixed(2)}`);
      }
    }
  }
  expect(problems).toEqual([]);
});

test('the skip link is the first stop and moves focus to the main content', async ({ page }) => {
  await page.goto('/business');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to main content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
  await page.keyboard.press('Tab');
  const inMain = await page.evaluate(() => document.querySelector('main')?.contains(document.activeElement));
  expect(inMain).toBe(true);
});

test('an FAQ answer opens with Enter and with Space', async ({ page }) => {
  await page.goto('/business');
  const question = page.locator('summary', { hasText: 'Can I send gifts to a group?' });
  await question.focus();
  await page.keyboard.press('Enter');
  expect(await accessibleNode(question)).toMatchObject({ expanded: true, focused: true });
  await expect(page.getByText('Yes. Create a group for family')).toBeVisible();
  await page.keyboard.press('Space');
  expect(await accessibleNode(question)).toMatchObject({ expanded: false });
  await page.keyboard.press('Space');
  expect(await accessibleNode(question)).toMatchObject({ expanded: true });
});

test('the hero’s pause control works from the keyboard', async ({ page }) => {
  await page.goto('/');
  const pause = page.getByRole('checkbox', { name: 'Pause taglines and app screens' });
  await pause.focus();
  await page.keyboard.press('Space');
  await expect(pause).toBeChecked();
  await expect(pause).toBeFocused();
  await page.keyboard.press('Space');
  await expect(pause).not.toBeChecked();
});

// One test a page: two screenshots of a whole marketing page (7,600 px tall) took 5-20 s each in software rendering
// beside two other workers, and three pages in one test ran out of its minute.
for (const path of ['/', '/vendor', '/business']) {
  test(`with reduced motion nothing on ${path} moves by itself`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    // The page becoming interactive is not motion: the hero's carousel lays its slides out when it hydrates, which
    // on a busy machine can come after the network is idle.
    await untilHydrated(page);
    // First the visitor scrolls through once: lazy images load and sections reveal as they come into view.
    // What is measured is what happens after that, with nobody touching the page.
    await page.evaluate(async () => {
      for (let y = 0; y < document.documentElement.scrollHeight; y += window.innerHeight / 2) {
        window.scrollTo(0, y);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      window.scrollTo(0, 0);
      await Promise.all([...document.images].map((image) => image.decode().catch(() => undefined)));
    });
    await page.waitForLoadState('networkidle');
    // The whole page in one screen: a full-page screenshot resizes the window for an instant (to 1 x 1 px, here),
    // and the hero's carousel, which lays itself out per width, would be caught laying itself out again.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: 1280, height });
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => Promise.all([...document.images].map((image) => image.decode().catch(() => undefined))));
    // Settled first: two screenshots half a second apart alike. Work the scroll started (the landing page's
    // animated parts replacing its still ones, in a transition) can finish late on a busy machine and paint the page
    // once more; what moves by itself keeps changing it, and 3.5 s later it is caught.
    let before = await page.screenshot();
    await expect
      .poll(
        async () => {
          const next = await page.screenshot();
          const alike = next.equals(before);
          before = next;
          return alike;
        },
        { timeout: 30_000, intervals: [500] },
      )
      .toBe(true);
    await page.waitForTimeout(3500);
    const after = await page.screenshot();
    expect(after.equals(before), `${path} changed on its own`).toBe(true);
  });
}

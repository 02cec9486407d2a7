import { expect, type Locator, type Page } from '@playwright/test';
import { faqEntries, paths } from '@gift/content';
import { exampleShareLink } from './example-pages.ts';
import { isHydrated, untilHydrated } from './phone.ts';

/**
 * The controls a visitor uses as soon as a page shows them, before its scripts have run or without them. Each
 * acts the way a person does (a tap where the control is drawn, keys typed) and checks that the page answered:
 * at once, and still once the scripts have arrived (nothing dropped, nothing wiped). Shared by the first-paint
 * journeys (e2e/tests/first-paint.spec.ts) and the dead-window measurement of `pnpm perf`.
 */
export interface FirstPaintControl {
  name: string;
  path: string;
  /** Whether the control can work with JavaScript off (the device's position cannot). */
  worksWithoutScripts: boolean;
  /** Acts on the control; `marker` makes what is typed unique to this run. */
  act(page: Page, marker: string): Promise<void>;
  /** Throws unless the page answered, now and (when it has scripts) after they have run. */
  answered(page: Page, marker: string, scripts: boolean): Promise<void>;
}

/** A tap where the element is drawn, as soon as it is visible: no waiting for it to be enabled or hydrated. */
export async function tapNow(target: Locator) {
  await target.waitFor({ state: 'visible', timeout: 15_000 });
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  if (!box) throw new Error('The control has no box to tap');
  const page = target.page();
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  // A phone's tap where the context has a touch screen, a mouse click otherwise.
  await page.touchscreen.tap(x, y).catch(() => page.mouse.click(x, y));
}

/** Types into a field the way a person does: tap it, then type. */
async function typeInto(field: Locator, text: string) {
  await tapNow(field);
  await field.page().keyboard.type(text);
}

/** Waits for the scripts (when they run) and a little longer, so that a late wipe or re-render would show. */
async function afterScripts(page: Page, scripts: boolean) {
  if (!scripts) return;
  if (!(await isHydrated(page))) await untilHydrated(page);
  await page.waitForTimeout(300);
}

const answerSoon = { timeout: 2_000 };
const answerByServer = { timeout: 15_000 };
const faq = faqEntries[1]!;

function faqControl(path: string): FirstPaintControl {
  return {
    name: `FAQ on ${path}`,
    path,
    worksWithoutScripts: true,
    act: (page) => tapNow(page.getByText(faq.question, { exact: true })),
    async answered(page, _marker, scripts) {
      await expect(page.getByText(faq.answer)).toBeVisible(answerSoon);
      await afterScripts(page, scripts);
      await expect(page.getByText(faq.answer)).toBeVisible(answerSoon);
    },
  };
}

function menuControl(path: string, menuName: string, item: string): FirstPaintControl {
  const menuItem = (page: Page) => page.getByRole('navigation', { name: menuName }).getByRole('link', { name: item });
  return {
    name: `menu on ${path}`,
    path,
    worksWithoutScripts: true,
    act: (page) => tapNow(page.locator('header button').first()),
    async answered(page, _marker, scripts) {
      await expect(menuItem(page)).toBeVisible(answerSoon);
      await afterScripts(page, scripts);
      await expect(menuItem(page)).toBeVisible(answerSoon);
    },
  };
}

const form = (page: Page) => ({
  name: page.getByLabel('Full Name'),
  email: page.getByLabel('Email Address'),
  reason: page.getByLabel('Reason for Deleting'),
  submit: page.getByRole('button', { name: 'Submit Request' }),
  status: page.getByText(/Please fill in all fields\.|has been submitted\.|Something went wrong|Server error/),
});

const email = (marker: string) => `first-paint-${marker}@example.com`;

/** Types the deletion form as a visitor does: name, email and, unless it is empty, the reason. */
async function typeDeletionForm(page: Page, marker: string, reason: string) {
  const fields = form(page);
  await typeInto(fields.name, 'Ann Lee');
  await typeInto(fields.email, email(marker));
  if (reason) await typeInto(fields.reason, reason);
  return fields;
}

/** The form's answer arrives (from the server when it was posted natively) and is still there once hydrated. */
async function statusStays(page: Page, message: string, scripts: boolean) {
  const { status } = form(page);
  await expect(status).toHaveText(message, answerByServer);
  await afterScripts(page, scripts);
  await expect(status).toHaveText(message, answerSoon);
  return form(page);
}

/** The deletion form typed with `reason` and submitted as soon as it is there; `answered` looks at what it said. */
const submittedAtOnce = (name: string, reason: string, answered: FirstPaintControl['answered']): FirstPaintControl => ({
  name,
  path: paths.deleteAccount,
  worksWithoutScripts: true,
  act: async (page, marker) => tapNow((await typeDeletionForm(page, marker, reason)).submit),
  answered,
});

export const firstPaintControls: FirstPaintControl[] = [
  faqControl(paths.home),
  faqControl(paths.vendor),
  faqControl(paths.business),
  menuControl(paths.privacy, 'Main', 'FAQs'),
  menuControl(paths.vendor, 'Vendor', 'Login'),
  {
    name: 'deletion form: typed text kept',
    path: paths.deleteAccount,
    worksWithoutScripts: true,
    act: (page, marker) => typeDeletionForm(page, marker, 'Typed before the scripts came.').then(() => undefined),
    async answered(page, marker, scripts) {
      await afterScripts(page, scripts);
      const fields = form(page);
      await expect(fields.name).toHaveValue('Ann Lee', answerSoon);
      await expect(fields.email).toHaveValue(email(marker), answerSoon);
      await expect(fields.reason).toHaveValue('Typed before the scripts came.', answerSoon);
    },
  },
  submittedAtOnce('deletion form: submitted at once', 'Sent at once.', async (page, _marker, scripts) => {
    const fields = await statusStays(page, 'Your account deletion request has been submitted.', scripts);
    await expect(fields.email).toHaveValue('');
  }),
  submittedAtOnce('deletion form: empty reason', '', async (page, marker, scripts) => {
    const fields = await statusStays(page, 'Please fill in all fields.', scripts);
    await expect(fields.email).toHaveValue(email(marker));
    await expect(fields.name).toHaveValue('Ann Lee');
  }),
  {
    name: 'share-location: typed address',
    path: exampleShareLink,
    worksWithoutScripts: true,
    async act(page, marker) {
      await tapNow(page.getByText('Type an address instead'));
      await typeInto(page.getByLabel('Delivery address'), `1 First Paint Street ${marker}, 1011 AB Amsterdam`);
      await tapNow(page.getByRole('button', { name: 'Confirm address' }));
    },
    async answered(page, marker, scripts) {
      await expect(page.getByText(`1 First Paint Street ${marker}`)).toBeVisible(answerByServer);
      await expect(page.getByRole('heading', { name: 'Thank you!' })).toBeVisible(answerByServer);
      await afterScripts(page, scripts);
      await expect(page.getByRole('heading', { name: 'Thank you!' })).toBeVisible(answerSoon);
    },
  },
  {
    name: 'feature chosen on /',
    path: paths.home,
    // Without scripts the page still jumps to the feature's place, but nothing changes the panel.
    worksWithoutScripts: false,
    act: (page) => tapNow(page.getByRole('list', { name: 'Choose a feature' }).getByText('Plan Occasions')),
    async answered(page, _marker, scripts) {
      await afterScripts(page, scripts);
      const features = page.locator('#features');
      await expect(features.getByRole('heading', { level: 3, name: 'Plan Occasions' })).toBeVisible(answerByServer);
      await expect(features.locator('[aria-current="true"]')).toHaveText('Plan Occasions');
    },
  },
  {
    name: 'carousel pause',
    path: paths.home,
    worksWithoutScripts: false,
    act: (page) => tapNow(page.getByLabel('Pause taglines and app screens')),
    async answered(page, _marker, scripts) {
      const current = () =>
        page.locator('[aria-label="taglines"] [data-current="true"]').getAttribute('data-index', answerSoon);
      await expect(page.getByLabel('Pause taglines and app screens')).toBeChecked(answerSoon);
      const before = await current();
      await afterScripts(page, scripts);
      // Three and a half autoplay intervals: a running carousel would have moved.
      await page.waitForTimeout(3_500);
      expect(await current()).toBe(before);
      await expect(page.getByLabel('Pause taglines and app screens')).toBeChecked(answerSoon);
    },
  },
];

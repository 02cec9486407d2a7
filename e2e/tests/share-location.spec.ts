import { expect, test } from './support.ts';

const token = 'gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7';
const link = `/share-location/${token}`;

test('no byte of the share-location remote loads until one of its addresses is visited', async ({ page }) => {
  const fetched: string[] = [];
  page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  expect(fetched.filter((path) => path.startsWith('/remotes/share-location/'))).toEqual([]);

  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1, name: 'Share your delivery location' })).toBeVisible();
  expect(fetched.some((path) => path.startsWith('/remotes/share-location/'))).toBe(true);
});

test.describe('with location allowed', () => {
  test.use({
    permissions: ['geolocation'],
    geolocation: { latitude: 52.370216, longitude: 4.895168, accuracy: 12 },
  });

  test('finds the position, shows it with a maps link, and shares it on confirm', async ({ page, consoleErrors }) => {
    await page.goto(link);
    await page.getByRole('button', { name: 'Share my location' }).click();
    await expect(page.getByRole('heading', { name: 'We found you, accurate to about 12 m.' })).toBeVisible();
    await expect(page.getByText('52.37022, 4.89517')).toBeVisible();
    await expect(page.getByRole('link', { name: /Open in maps/ })).toHaveAttribute(
      'href',
      /query=52\.370216,4\.895168/,
    );
    const [response] = await Promise.all([
      page.waitForResponse('**/api/share-location'),
      page.getByRole('button', { name: 'Confirm this location' }).click(),
    ]);
    expect(response.status()).toBe(202);
    expect(JSON.parse(response.request().postData() ?? '{}')).toMatchObject({
      token,
      position: { latitude: 52.370216, longitude: 4.895168, accuracy: 12 },
    });
    await expect(page.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
    // Raised by the remote, shown by the shell's outlet: one shared store.
    await expect(page.getByRole('region', { name: 'Notifications' })).toContainText(
      'Delivery location shared with the sender.',
    );
    expect(consoleErrors).toEqual([]);
  });

  test('a reload of the deep link serves the screen again', async ({ page }) => {
    await page.goto(link);
    await page.reload();
    await expect(page.getByRole('button', { name: 'Share my location' })).toBeVisible();
  });

  test('a server that refuses or cannot be reached gets its own message and a way forward', async ({ page }) => {
    let mode: 'down' | 'refuse' = 'down';
    await page.route('**/api/share-location', (route) =>
      mode === 'down'
        ? route.abort('connectionrefused')
        : route.fulfill({ status: 400, json: { error: 'Bad Request' } }),
    );
    await page.goto(link);
    await page.getByRole('button', { name: 'Share my location' }).click();
    await page.getByRole('button', { name: 'Confirm this location' }).click();
    await expect(page.getByRole('alert')).toContainText('We could not reach our server');
    mode = 'refuse';
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByRole('alert')).toContainText('the link may have expired');
    await expect(page.getByRole('button', { name: 'Type an address instead' })).toBeVisible();
  });
});

test.describe('with location denied', () => {
  test('explains how to allow it and lets the recipient type an address instead', async ({ page, context }) => {
    await context.clearPermissions();
    await page.goto(link);
    await page.getByRole('button', { name: 'Share my location' }).click();
    await expect(page.getByRole('alert')).toContainText('Location access is blocked for this site');
    await page.getByRole('button', { name: 'Type an address instead' }).click();
    // Too short an address: the field is marked and the message is in the error colour, beside it.
    const address = page.getByLabel('Delivery address');
    await address.fill('12');
    await page.getByRole('button', { name: 'Confirm address' }).click();
    await expect(address).toHaveAttribute('aria-invalid', 'true');
    await expect(address).toHaveAccessibleDescription(/Enter the full delivery address\./);
    const message = page.getByText('Enter the full delivery address.');
    const errorColour = await page.evaluate(() =>
      getComputedStyle(document.documentElement).getPropertyValue('--color-error').trim(),
    );
    expect(errorColour).toBe('#b42318');
    await expect(message).toHaveCSS('color', 'rgb(180, 35, 24)');
    await expect(address).toHaveCSS('border-top-color', 'rgb(180, 35, 24)');
    await address.fill('12 Canal Street, 1012 AB Amsterdam');
    const [response] = await Promise.all([
      page.waitForResponse('**/api/share-location'),
      page.getByRole('button', { name: 'Confirm address' }).click(),
    ]);
    expect(response.status()).toBe(202);
    await expect(page.getByText('Your address has been shared with the sender.')).toBeVisible();
  });
});

test('a link without a valid token says so', async ({ page }) => {
  await page.goto('/share-location/oops');
  await expect(page.getByRole('alert')).toContainText('This link is incomplete or damaged');
});

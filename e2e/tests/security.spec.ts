import { exampleShareLink, examplePagePaths } from '../example-pages.ts';
import { changeManifest, expect, test, visitFromNotFound } from './support.ts';

test.describe('security headers', () => {
  test('every page carries a strict CSP and the other security headers; a script only those a script needs', async ({
    page,
    request,
  }) => {
    const assets: string[] = [];
    page.on('response', (response) => {
      if (/\/(assets|remotes)\/.+\.js$/.test(response.url())) assets.push(response.url());
    });
    await page.goto('/privacy');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    for (const url of ['/', '/privacy', '/no-such-page', '/remotes.json', '/api/health', '/not-found.svg']) {
      const headers = (await request.get(url)).headers();
      const csp = headers['content-security-policy'] ?? '';
      const scriptSrc = csp.split(';').find((directive) => directive.trim().startsWith('script-src')) ?? '';
      expect(scriptSrc, url).toContain("'self'");
      expect(scriptSrc, url).not.toContain('unsafe-inline');
      expect(scriptSrc, url).not.toContain('unsafe-eval');
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toContain("object-src 'none'");
      expect(headers['x-content-type-options'], url).toBe('nosniff');
      expect(headers['referrer-policy'], url).toBe('strict-origin-when-cross-origin');
      expect(headers['permissions-policy'], url).toContain('geolocation=()');
      // Plain HTTP here: HSTS belongs to HTTPS responses only.
      expect(headers['strict-transport-security'], url).toBeUndefined();
    }
    // A script is never a document: it is sniffed for nothing and says who may load it, and no more (each of the
    // twenty a page loads would carry 0.7 KiB of a document's headers over a phone's line).
    for (const url of [assets[0]!, assets.at(-1)!]) {
      const headers = (await request.get(url)).headers();
      expect(headers['x-content-type-options'], url).toBe('nosniff');
      expect(headers['cross-origin-resource-policy'], url).toMatch(/^(same-origin|cross-origin)$/);
      expect(headers['content-security-policy'], url).toBeUndefined();
      expect(headers['permissions-policy'], url).toBeUndefined();
    }
  });

  test('geolocation is allowed on the share-location screen only', async ({ request }) => {
    const headers = (await request.get(exampleShareLink)).headers();
    expect(headers['permissions-policy']).toContain('geolocation=(self)');
  });

  test('no page breaks the CSP, and every link that opens a new tab drops opener and referrer', async ({
    page,
    context,
  }) => {
    test.setTimeout(90_000);
    await context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    const cspMessages: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) cspMessages.push(message.text());
    });
    for (const path of [...examplePagePaths, '/no-such-page']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
      await page.waitForLoadState('networkidle');
      expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations), path).toEqual(
        [],
      );
      for (const link of await page.locator('a[target="_blank"]').all()) {
        const rel = (await link.getAttribute('rel')) ?? '';
        expect(rel.split(/\s+/), `${path} ${await link.getAttribute('href')}`).toEqual(
          expect.arrayContaining(['noopener', 'noreferrer']),
        );
      }
    }
    expect(cspMessages).toEqual([]);
  });
});

test('a remote entry outside the allowed origins is refused and logged: the server’s page is kept, and the shell shows its routes unavailable', async ({
  page,
  consoleErrors,
}) => {
  await changeManifest(page, (manifest) => ({ ...manifest, legal: 'https://cdn.evil.example/legal/remoteEntry.js' }));
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.dataset.ready)).toBe('kept');
  expect(consoleErrors.filter((text) => text.includes('outside the allowed origins'))).toHaveLength(1);
  // Where the shell runs, a client-side visit to the remote's route.
  await visitFromNotFound(page, 'Terms & Conditions');
  await expect(page.getByRole('heading', { name: 'This part of the site is unavailable' })).toBeVisible();
  expect(requested.filter((url) => url.includes('evil.example'))).toEqual([]);
});

import { paths } from '@gift/content';
import { exampleShareLink } from '../example-pages.ts';
import { changeManifest, expect, test } from './support.ts';

/** The public pages the build prerenders (a share link's token and a confirmation fragment are per visitor). */
const prerendered = [
  { path: '/', heading: 'The easiest way to' },
  { path: '/test', heading: 'Scroll down' },
  { path: '/vendor', heading: 'Sell your gifts to people who are looking for them' },
  { path: '/business', heading: 'Create Memorable Moments for Your Team' },
  { path: '/manageteam', heading: 'Manage Teams' },
  { path: '/budget-tracking', heading: 'Budget Tracking' },
  { path: '/team-gifting', heading: 'Simplify Gifting for Teams' },
  { path: '/privacy', heading: 'Privacy Policy' },
  { path: '/terms', heading: 'Terms & Conditions' },
  { path: '/delete-account', heading: 'Delete Your Account' },
];

test.describe('prerendered pages', () => {
  for (const { path, heading } of prerendered) {
    test(`${path} arrives as HTML with its content, its remote's CSS and preloads, and its own metadata`, async ({
      request,
      baseURL,
    }) => {
      const response = await request.get(path);
      expect(response.status()).toBe(200);
      const html = await response.text();
      expect(html).toContain('<html lang="en">');
      expect(html).toContain(heading.replace('&', '&amp;'));
      // Its styles are in it, the shell's and the remote's, so that it paints without another round trip; the
      // remote's scripts find its stylesheet's (disabled, never fetched) link and do not load it again.
      expect(html).toMatch(/<style>@font-face[^<]+<\/style>/);
      expect(html).toMatch(
        /<style>[^<]+<\/style><link rel="stylesheet" href="\/remotes\/[a-z-]+\/assets\/[^"]+\.css" disabled \/>/,
      );
      expect(html).not.toMatch(/<link rel="stylesheet"(?![^>]* disabled)/);
      // Every script the page runs at start is asked for at once, after the page's markup (its requests do not share
      // the line with the document's last bytes): the shell's app, and every chunk it and the page's module import
      // (issue 79: nothing of the federation runtime, no remote entry). The start script, the body's last element,
      // evaluates them once the page has painted: React's chunk and the shared modules' module first, one per task.
      const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]* href="([^"]+)"/g)].map((link) => link[1]!);
      // The first paint waits for the whole of the markup: the head's `rel=expect` names the empty element after it.
      const markupEnd = html.match(/<link rel="expect" href="#([a-z-]+)" blocking="render" \/>/)?.[1];
      const links = html.match(
        new RegExp(
          `</div><template id="${markupEnd}"></template>\\s*((?:<link rel="modulepreload"[^>]+/>)+)<script data-entry=`,
        ),
      )?.[1];
      expect(links?.match(/<link /g)).toHaveLength(preloads.length);
      const start = html.match(/<script data-entry="([^"]+)" data-first="([^"]+)">[^<]+<\/script>\s*<\/body>/);
      expect(start?.[1]).toMatch(/^\/assets\/index-[^"]+\.js$/);
      expect(preloads[0]).toBe(start?.[1]);
      const pageModule = html.match(/<div id="root"[^>]*data-page-module="([^"]+)"/)?.[1];
      expect(pageModule).toMatch(/^\/remotes\/[a-z-]+\/assets\/[^ ]+\.js$/);
      expect(preloads).toContain(pageModule);
      expect(preloads.join(' ')).not.toMatch(/remoteEntry|federation|hostInit|localSharedImportMap/);
      const first = start?.[2]?.split(' ') ?? [];
      expect(first.map((chunk) => chunk.replace(/-[\w-]{8}\.js$/, ''))).toEqual([
        '/assets/loadShare-eager',
        '/assets/shared-modules',
      ]);
      expect(first.filter((chunk) => !preloads.includes(chunk))).toEqual([]);
      // The page's import map resolves the shared modules' names to the shell's one module of them.
      const importMap = JSON.parse(html.match(/<script type="importmap">([^<]*)<\/script>/)![1]!) as {
        imports: Record<string, string>;
      };
      expect(new Set(Object.values(importMap.imports))).toEqual(new Set([first[1]]));
      expect(Object.keys(importMap.imports)).toEqual(
        expect.arrayContaining(['react', 'react/jsx-runtime', 'react-dom']),
      );
      expect(html).not.toContain('<script type="module"');
      expect(html).toContain(`<link rel="canonical" href="${baseURL}${path}" />`);
      expect(html.match(/<title>/g)).toHaveLength(1);
      for (const tag of ['name="description"', 'property="og:title"', 'property="og:image"', 'name="twitter:card"']) {
        expect(html, tag).toContain(tag);
      }
    });
  }

  test('the HTML names every script a page runs to hydrate, and the manifest it was served with', async ({
    page,
    request,
  }) => {
    for (const path of ['/', '/privacy', '/delete-account']) {
      const html = await (await request.get(path)).text();
      const listed = new Set(
        [...html.matchAll(/<link rel="modulepreload"[^>]* href="([^"]+)"/g)].map((link) => link[1]),
      );
      const manifest = JSON.parse(
        html.match(/<script type="application\/json" id="remotes-manifest"[^>]*>([^<]+)</)![1]!,
      );
      expect(manifest).toEqual(await (await request.get('/remotes.json')).json());

      await page.goto(path);
      await expect(page.locator('html[data-ready="true"]')).toBeAttached();
      // Nothing waited to be discovered by another script: no chain of round trips before the page answers. The
      // web-vitals chunk is fetched after hydration, when the page is idle, on purpose (field-data.ts).
      const requested = await page.evaluate(() => {
        const hydrated = performance.getEntriesByName('hydrated')[0]!.startTime;
        return (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
          .filter((entry) => entry.startTime < hydrated && /\.js(\?|$)|remotes\.json/.test(entry.name))
          .map((entry) => entry.name.replace(location.origin, ''));
      });
      expect(requested.length, path).toBeGreaterThan(0);
      expect(
        requested.filter((url) => !listed.has(url)),
        path,
      ).toEqual([]);
      // No federation before hydration (issue 79); its runtime arrives after, when the page is idle.
      expect(
        requested.filter((url) => /remoteEntry|federation|hostInit|localSharedImportMap|remotes\.json/.test(url)),
      ).toEqual([]);
      await expect
        .poll(() =>
          page.evaluate(() => performance.getEntriesByType('resource').some((entry) => /hostInit/.test(entry.name))),
        )
        .toBe(true);
    }
  });

  test('hydrate without a mismatch: no console error or warning, and the server-rendered nodes are kept', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const messages: string[] = [];
    page.on('console', (message) => {
      if (['error', 'warning'].includes(message.type())) messages.push(`${message.type()}: ${message.text()}`);
    });
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const heading = document.querySelector('main h1');
        (window as unknown as { serverHeading?: Element | null }).serverHeading = heading;
      });
    });
    for (const { path } of prerendered) {
      await page.goto(path);
      const kept = await page.evaluate(() => {
        const serverHeading = (window as unknown as { serverHeading?: Element | null }).serverHeading;
        return Boolean(serverHeading?.isConnected && serverHeading === document.querySelector('main h1'));
      });
      expect(kept, `${path}: the heading from the HTML is the one on screen after hydration`).toBe(true);
    }
    expect(messages).toEqual([]);
  });

  test('the home page carries Organization structured data; other pages do not', async ({ request }) => {
    const home = await (await request.get('/')).text();
    const json = home.match(/<script type="application\/ld\+json">([^<]+)<\/script>/)?.[1];
    expect(JSON.parse(json ?? '{}')).toMatchObject({ '@type': 'Organization', name: 'Giftwell' });
    expect(await (await request.get('/privacy')).text()).not.toContain('application/ld+json');
  });

  test('the unknown-path page answers 404 with its own title and no indexing', async ({ request }) => {
    const response = await request.get('/no/such/page');
    expect(response.status()).toBe(404);
    const html = await response.text();
    expect(html).toContain('<title>Page not found | Giftwell</title>');
    expect(html).toContain('<meta name="robots" content="noindex" />');
    expect(html).toContain('Page not found</h1>');
  });

  test('pages that depend on their address are rendered on the server when asked for, and hydrate', async ({
    page,
    request,
    consoleErrors,
  }) => {
    const share = await (await request.get(exampleShareLink)).text();
    expect(share).toContain('<title>Share your delivery location | Giftwell</title>');
    expect(share).toContain('Share my location</button>');
    const broken = await (await request.get('/share-location/bad')).text();
    expect(broken).toContain('This link is incomplete or damaged.');
    // The confirmation token travels in the fragment, which no server sees: the page starts by checking.
    expect(await (await request.get('/delete-account/confirm')).text()).toContain('role="status"');

    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        (window as unknown as { serverHeading?: Element | null }).serverHeading = document.querySelector('main h1');
      });
    });
    for (const path of [exampleShareLink, `/delete-account/confirm#token=${'A'.repeat(43)}`]) {
      await page.goto(path);
      const kept = await page.evaluate(() => {
        const serverHeading = (window as unknown as { serverHeading?: Element | null }).serverHeading;
        return Boolean(serverHeading?.isConnected && serverHeading === document.querySelector('main h1'));
      });
      expect(kept, path).toBe(true);
    }
    await expect(page.getByRole('alert')).toHaveText(/This link is not valid/);
    expect(consoleErrors.filter((text) => !text.includes('404'))).toEqual([]);
  });

  test('sitemap, robots, favicon and touch icons are served', async ({ request, baseURL }) => {
    const sitemap = await (await request.get('/sitemap.xml')).text();
    for (const path of [paths.home, paths.vendor, paths.business, paths.privacy, paths.terms, paths.deleteAccount]) {
      expect(sitemap).toContain(`<loc>${baseURL}${path}</loc>`);
    }
    expect(sitemap).not.toContain('/share-location');
    const robots = await request.get('/robots.txt');
    expect(robots.headers()['content-type']).toContain('text/plain');
    expect(await robots.text()).toContain(`Sitemap: ${baseURL}/sitemap.xml`);
    for (const icon of ['/favicon.svg', '/apple-touch-icon.png', '/icon-192.png', '/og-image.png']) {
      expect((await request.get(icon)).status(), icon).toBe(200);
    }
    expect((await request.get('/ssr/prerender.js')).status()).toBe(404);
    expect((await request.get('/remotes/consumer/ssr/landing-page.js')).status()).toBe(404);
  });
});

test.describe('without JavaScript', () => {
  test('every page is readable, animated content is shown, and links lead to the next page', async ({ browser }) => {
    // Eleven loads in one context (the font and images come from its cache after the first): 7 s on an idle
    // machine, past 30 s on a CI run's busiest minutes. One test per page costs each its cold cache (4-8 s each).
    test.slow();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    for (const { path, heading } of prerendered) {
      await page.goto(path, { waitUntil: 'load' });
      await expect(page.getByRole('heading', { level: 1 }).first(), path).toContainText(heading);
    }
    const homeResponse = await page.goto('/', { waitUntil: 'load' });
    await expect(page.getByRole('heading', { name: 'Plan Special Occasions' })).toBeVisible();
    // What slides in with scripts is shown until they come, and without them: the server hides none of it.
    const home = await homeResponse!.text();
    expect(home.match(/data-reveal="true"/g)?.length).toBe(4);
    expect(home).not.toMatch(/data-reveal="true" style=/);
    expect(home).not.toContain('This site needs JavaScript');
    await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
    await expect(page).toHaveURL('/terms');
    await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
    const formResponse = await page.goto('/delete-account', { waitUntil: 'load' });
    await expect(page.getByRole('button', { name: 'Submit Request' })).toBeEnabled();
    expect(await formResponse!.text()).not.toContain('needs JavaScript');
    await context.close();
  });
});

test('a remote redeployed after the prerender: its page renders afresh, without a mismatch or an error', async ({
  page,
  consoleErrors,
}) => {
  // The manifest now names another build of the legal remote than the one the HTML was rendered with.
  await changeManifest(page, (manifest) => ({ ...manifest, legal: `${manifest.legal}&redeployed=1` }));
  await page.goto('/privacy');
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  await expect(page.getByRole('contentinfo')).toContainText('© 2025');
  expect(consoleErrors).toEqual([]);
});

test('hovering or focusing a link loads its page before the click', async ({ page }) => {
  await page.goto('/privacy');
  const loaded: string[] = [];
  page.on('request', (request) => loaded.push(new URL(request.url()).pathname));
  await page.getByRole('link', { name: 'Giftwell home' }).hover();
  await expect.poll(() => loaded.some((path) => path.startsWith('/remotes/consumer/'))).toBe(true);
  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).focus();
  await page.getByRole('link', { name: 'Giftwell home' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('The easiest way to');
  await expect(page.locator('[class*="progress"]')).toHaveCount(0);
});

import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstDeployment, releaseCommand, startServer } from '../release-commands.ts';
import type { Page } from '@playwright/test';
import { expect, test } from './support.ts';

/**
 * A deployment of its own, as a team ships it: the remotes published with `pnpm release` to a folder that a second
 * origin serves (a CDN), the site server reading the manifest that the releases switch. Nothing is prerendered for
 * these builds: every page catches up by itself.
 */
const sitePort = 4321;
const cdnPort = 4322;
const site = `http://127.0.0.1:${sitePort}`;
const cdn = `http://127.0.0.1:${cdnPort}`;
let deployDir = '';
let env: NodeJS.ProcessEnv = {};

/** `pnpm release`, `pnpm rollback`: what a team runs; resolves with what it printed, once it has succeeded. */
async function release(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const { code, printed } = await releaseCommand(args, { ...env, ...extraEnv });
  expect(code, `${args.join(' ')}: ${printed}`).toBe(0);
  return printed;
}

const servers: ChildProcess[] = [];
const serve = async (script: string, serverEnv: NodeJS.ProcessEnv, url: string) =>
  servers.push(await startServer(script, { ...env, ...serverEnv }, url));

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  ({ deployDir, env } = await firstDeployment('release-journey', {
    REMOTES_BASE_URL: `${cdn}/`,
    // The site server signs nothing; `pnpm preview-link` signs with the same secret, and the site checks it.
    PREVIEW_SECRET: 'preview-secret-for-the-release-journey-0123456789',
    PUBLIC_SITE_URL: site,
  }));
  await serve('src/dev/remotes-host-main.ts', { PORT: String(cdnPort), SITE_ORIGINS: site }, cdn);
  await serve(
    'src/main.ts',
    {
      PORT: String(sitePort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: join(deployDir, 'data'),
      REMOTE_ORIGINS: cdn,
    },
    `${site}/remotes.json`,
  );
});

test.afterAll(() => {
  for (const child of servers) child.kill('SIGTERM');
  rmSync(deployDir, { recursive: true, force: true });
});

/** The HTML the server sends for a page, before any script runs. */
async function servedHtml(path: string) {
  return (await fetch(`${site}${path}`)).text();
}

test('remotes served from a second origin: CORS and the CSP allow exactly the configured origins', async ({
  page,
  consoleErrors,
}) => {
  const fromCdn: string[] = [];
  page.on('request', (request) => request.url().startsWith(cdn) && fromCdn.push(request.url()));
  const csp: string[] = [];
  page.on('console', (message) => message.text().includes('Content Security Policy') && csp.push(message.text()));
  const response = await page.goto(`${site}/business`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.getByRole('contentinfo').getByRole('link', { name: 'Privacy Policy' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  expect(fromCdn.some((url) => url.includes('/business/'))).toBe(true);
  expect(fromCdn.some((url) => url.includes('/legal/'))).toBe(true);
  expect(csp).toEqual([]);
  expect(consoleErrors).toEqual([]);

  const policy = response!.headers()['content-security-policy']!;
  expect(policy).toContain(`script-src 'self'`);
  expect(policy.match(/script-src [^;]*/)![0]).toContain(cdn);
  expect(policy).not.toContain('127.0.0.1:4310');
  const entry = JSON.parse(await (await fetch(`${site}/remotes.json`)).text()).vendor as string;
  const cors = async (origin: string) =>
    (await fetch(entry, { headers: { origin } })).headers.get('access-control-allow-origin');
  expect(await cors(site)).toBe(site);
  expect(await cors('https://elsewhere.example')).toBeNull();
});

test('a released remote is live at the next load, prerendered by the server; an open tab keeps working; rollback restores it', async ({
  page,
  context,
  consoleErrors,
}) => {
  test.setTimeout(240_000);
  const before = await servedHtml('/vendor');
  expect(before).toMatch(/aria-label="Giftwell home"/);
  await page.goto(`${site}/vendor`);
  await expect(page.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();

  // A real build of the vendor remote whose copy differs (its brand), released without touching the shell or server.
  const printed = await release(['release', 'vendor'], { VITE_BRAND_NAME: 'Giftwell Next' });
  expect(printed).toMatch(/^vendor: \S+ -> \S+$/m);

  // The HTML the server sends now is the new build's, before any script runs, and names that build.
  const entry = JSON.parse(await servedHtml('/remotes.json')).vendor as string;
  const [after, again] = await Promise.all([servedHtml('/vendor'), servedHtml('/vendor')]);
  expect(after).toContain('aria-label="Giftwell Next home"');
  expect(after).toContain(`data-remote-entry="${entry}"`);
  expect(again).toBe(after);

  // The tab that was open keeps working on the build it started with: its chunks are still served.
  await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
  await page.goBack();
  await expect(page.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();
  // Its next full navigation gets the new build, and hydrates it without a mismatch.
  await page.reload();
  await expect(page.getByRole('link', { name: 'Giftwell Next home' }).first()).toBeVisible();
  const fresh = await context.newPage();
  await fresh.goto(`${site}/vendor`);
  await expect(fresh.getByRole('link', { name: 'Giftwell Next home' }).first()).toBeVisible();

  await release(['rollback', 'vendor']);
  expect(await servedHtml('/vendor')).toContain('aria-label="Giftwell home"');
  await fresh.reload();
  await expect(fresh.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();
  expect(consoleErrors).toEqual([]);
});

test('a page names the recorded integrity of its remote’s files, and a browser refuses a file tampered with on the CDN', async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const html = await servedHtml('/vendor');
  const entry = JSON.parse(await servedHtml('/remotes.json')).vendor as string;
  const version = /\/vendor\/([^/]+)\//.exec(entry)![1]!;
  const folder = join(env.REMOTES_DIR!, 'vendor', version);
  const integrity = JSON.parse(readFileSync(join(folder, 'integrity.json'), 'utf8')) as Record<string, string>;
  // Every preloaded file of the remote carries it, on its modulepreload link. The stylesheet is in the page (its
  // bytes checked against the same record when the page was rendered), its link disabled.
  const links = [...html.matchAll(/<link rel="modulepreload"[^>]* href="([^"]+)"(?: integrity="([^"]+)")?/g)];
  const preloads = links.map((link) => link[1]!);
  const integrities = links.map((link) => link[2]);
  // What each way of loading the page runs: the page module (a page the server rendered, issue 79), or the remote's
  // entry and its federation build's chunk (a client-side navigation, and the retry of a refused page module).
  const pageModule = /data-page-module="([^"]+)"/.exec(html)![1]!.split(`/vendor/${version}/`)[1]!;
  const federatedChunk = Object.keys(integrity).find((path) => /^assets\/vendor-page-[^/]*\.js$/.test(path))!;
  expect(integrities[preloads.indexOf(`${cdn}/vendor/${version}/${pageModule}`)]).toBe(integrity[pageModule]);
  expect(preloads.some((url) => /remoteEntry|federation/.test(url))).toBe(false);
  expect(html).toMatch(/<style>[^<]+<\/style><link rel="stylesheet" href="[^"]+\/vendor\/[^"]+\.css" disabled \/>/);
  // And the page's import map names every script of the build, first in its head, before any module loads.
  const importMap = JSON.parse(/<script type="importmap">([^<]*)<\/script>/.exec(html)![1]!) as {
    integrity: Record<string, string>;
  };
  for (const [path, value] of Object.entries(integrity).filter(([path]) => path.endsWith('.js')))
    expect(importMap.integrity[`${cdn}/vendor/${version}/${path}`], path).toBe(value);
  expect(html.indexOf('<script type="importmap">')).toBeLessThan(html.indexOf('<link rel="modulepreload"'));

  /** Changes a file of the live build on the CDN (its compressed copies gone), and puts it back afterwards. */
  const tamper = (path: string, change: (text: string) => string) => {
    const file = join(folder, path);
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, change(original));
    for (const copy of ['.br', '.gz']) rmSync(`${file}${copy}`, { force: true });
    return () => writeFileSync(file, original);
  };
  const unavailable = (page: Page) =>
    expect(page.getByRole('heading', { level: 1, name: 'This part of the site is unavailable' })).toBeVisible({
      timeout: 20_000,
    });
  const ran = (page: Page) => page.evaluate(() => (window as unknown as { tampered?: number }).tampered);
  const visit = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    // What its field-data beacons carry (a beacon is not always seen as a request). Kept as it is sent: one sent as
    // the page goes away (a native navigation) is never read back from its Blob, so each Blob keeps its text.
    await page.addInitScript(() => {
      const texts = new WeakMap<Blob, string>();
      const NativeBlob = Blob;
      window.Blob = class extends NativeBlob {
        constructor(parts?: BlobPart[], options?: BlobPropertyBag) {
          super(parts, options);
          texts.set(this, (parts ?? []).map((part) => (typeof part === 'string' ? part : '')).join(''));
        }
      };
      const send = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        const text = data instanceof Blob ? texts.get(data) : undefined;
        if (text) sessionStorage.setItem('beacons', `${sessionStorage.getItem('beacons') ?? ''}${text}`);
        return send(url, data);
      };
    });
    const beacons = () => page.evaluate(() => sessionStorage.getItem('beacons') ?? '');
    return { context, page, errors, beacons };
  };
  // The landing page's teaser: a client-side link to the vendor page.
  const linkToVendor = (page: Page) => page.getByRole('link', { name: 'Become a vendor' });

  const tampered = async (paths: string[], check: () => Promise<void>) => {
    const restores = paths.map((path) =>
      tamper(path, (text) => `${text}\n;window.tampered = (window.tampered || 0) + 1;`),
    );
    try {
      await check();
    } finally {
      restores.forEach((restore) => restore());
    }
  };
  /** The vendor page loaded directly; resolves once it has started (`true`) or kept the server's page (`kept`). */
  const direct = async (ready: 'true' | 'kept') => {
    const visited = await visit();
    await visited.page.goto(`${site}/vendor`);
    await visited.page.waitForFunction((want) => document.documentElement.dataset.ready === want, ready, {
      timeout: 30_000,
    });
    await expect(visited.page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    await expect(visited.page.getByText('This part of the site is unavailable')).toHaveCount(0);
    expect(await ran(visited.page)).toBeUndefined();
    return visited;
  };
  /** The vendor page reached by a client-side navigation from `/`, after a prefetch on intent: refused. */
  const linkedIsRefused = async () => {
    const linked = await visit();
    await linked.page.goto(`${site}/`);
    await linked.page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    await linkToVendor(linked.page).hover();
    await linkToVendor(linked.page).click();
    await expect(linked.page).toHaveURL(`${site}/vendor`);
    await unavailable(linked.page);
    expect(await ran(linked.page)).toBeUndefined();
    await linked.context.close();
  };

  // The page module changed on the CDN: refused, however the page is reached; the page then loads the same release
  // through its federation build (the retry), and the view's field data reports the refusal.
  await tampered([pageModule], async () => {
    const visited = await direct('true');
    expect(visited.errors.join('\n')).toMatch(/integrity/i);
    await visited.page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
    await expect(visited.page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
    await expect.poll(visited.beacons).toMatch(/"remote":"vendor".*The vendor page module could not be loaded/);
    await visited.context.close();
    const linked = await visit();
    await linked.page.goto(`${site}/`);
    await linked.page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    await linkToVendor(linked.page).click();
    await expect(linked.page.getByRole('heading', { level: 1 }).first()).toHaveText(/Sell your gifts/);
    expect(await ran(linked.page)).toBeUndefined();
    expect(linked.errors.join('\n')).toMatch(/integrity/i);
    await linked.context.close();
  });
  // The page module and the federation build's page chunk, then the remote's entry: a client-side visit refuses both
  // ways in turn and shows the page unavailable.
  await tampered([pageModule, federatedChunk], linkedIsRefused);
  // The page module and the remote's entry: a first load refuses them (the preload and the federation runtime's import
  // alike), the server's page is kept as it was sent (readable, working without scripts), the rest of the site works,
  // and the view's field data says so.
  await tampered([pageModule, 'remoteEntry.js'], async () => {
    const visited = await direct('kept');
    expect(visited.errors.join('\n')).toMatch(/integrity/i);
    await visited.page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
    await expect(visited.page.getByRole('heading', { level: 1, name: 'Terms & Conditions' })).toBeVisible();
    await expect.poll(visited.beacons).toMatch(/"remote":"vendor".*The vendor remote could not be loaded/);
    await visited.context.close();
    await linkedIsRefused();
  });

  // The page's stylesheet changed on the CDN: refused on a client-side navigation too, never applied.
  const css = Object.keys(integrity).find((path) => /vendor-page.*\.css$/.test(path))!;
  const restore = tamper(css, (text) => `${text}\nbody{background:rgb(1, 2, 3)}`);
  try {
    const linked = await visit();
    await linked.page.goto(`${site}/`);
    await linked.page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    await linkToVendor(linked.page).click();
    await unavailable(linked.page);
    expect(await linked.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe('rgb(1, 2, 3)');
    await linked.context.close();
  } finally {
    restore();
  }

  // Put back, the remote loads again in a new page: nothing else was left broken.
  const healthy = await visit();
  await healthy.page.goto(`${site}/`);
  await healthy.page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
  await linkToVendor(healthy.page).click();
  await expect(healthy.page.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();
  expect(healthy.errors).toEqual([]);
  await healthy.context.close();
});

test('a signed preview link shows a candidate to that browser alone, never cached, until it ends or expires', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  // A real build of vendor with other copy, published as a candidate: nothing goes live.
  const printed = await release(['release', 'vendor', '--candidate'], { VITE_BRAND_NAME: 'Giftwell Preview' });
  const version = /published (\S+) as a candidate/.exec(printed)![1]!;
  expect(await servedHtml('/vendor')).toContain('aria-label="Giftwell home"');
  const previewLink = async (...flags: string[]) =>
    /^(http:\S+\/__preview\?token=\S+)$/m.exec(await release(['preview-link', 'vendor', version, ...flags]))![1]!;

  const previewer = await (await browser.newContext()).newPage();
  const visitor = await (await browser.newContext()).newPage();
  const errors: string[] = [];
  previewer.on('pageerror', (error) => errors.push(error.message));
  previewer.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  const pageResponses: Record<string, string>[] = [];
  previewer.on('response', (response) => {
    if (response.request().resourceType() === 'document') pageResponses.push(response.headers());
  });

  await previewer.goto(await previewLink());
  await expect(previewer).toHaveURL(`${site}/vendor`);
  await expect(previewer.getByRole('link', { name: 'Giftwell Preview home' }).first()).toBeVisible();
  const bar = previewer.getByRole('complementary', { name: 'Preview' });
  await expect(bar).toHaveText(`Preview: vendor ${version} · end preview`);
  await previewer.waitForFunction(() => document.documentElement.dataset.ready === 'true');
  const previewed = pageResponses.at(-1)!;
  expect(previewed['cache-control']).toBe('private, no-store');
  expect(previewed.vary).toContain('Cookie');
  // Its chunks come from the candidate's own folder on the CDN.
  expect(await previewer.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name))).toEqual(
    expect.arrayContaining([expect.stringContaining(`${cdn}/vendor/${version}/`)]),
  );

  // At the same time, another browser and the server's HTML for everyone else: the live build, no bar.
  const live = await visitor.goto(`${site}/vendor`);
  await expect(visitor.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();
  await expect(visitor.getByRole('complementary', { name: 'Preview' })).toHaveCount(0);
  expect(live!.headers()['cache-control']).toBe('no-cache');
  expect(await servedHtml('/vendor')).not.toContain('Giftwell Preview');

  // A token changed by hand grants nothing.
  const forged = await (await browser.newContext()).newPage();
  const token = new URL(await previewLink()).searchParams.get('token')!;
  await forged.context().addCookies([{ name: 'preview-vendor', value: `${token.slice(0, -2)}xx`, url: site }]);
  await forged.goto(`${site}/vendor`);
  await expect(forged.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();
  await expect(forged.getByRole('complementary', { name: 'Preview' })).toHaveCount(0);

  // Ending the preview is a link: back on the same page, live.
  await bar.getByRole('link', { name: 'end preview' }).click();
  await expect(previewer).toHaveURL(`${site}/vendor`);
  await expect(previewer.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();
  await expect(bar).toHaveCount(0);

  // A short link works until it expires; after that the site ignores it even if the browser still sends it.
  const shortLink = await previewLink('--hours', '0.002');
  await previewer.goto(shortLink);
  await expect(previewer.getByRole('link', { name: 'Giftwell Preview home' }).first()).toBeVisible();
  const expires =
    JSON.parse(Buffer.from(new URL(shortLink).searchParams.get('token')!.split('.')[0]!, 'base64url').toString()).e *
    1000;
  await previewer.waitForTimeout(Math.max(0, expires - Date.now()) + 1000);
  await previewer
    .context()
    .addCookies([{ name: 'preview-vendor', value: new URL(shortLink).searchParams.get('token')!, url: site }]);
  await previewer.reload();
  await expect(previewer.getByRole('link', { name: 'Giftwell home' }).first()).toBeVisible();
  await expect(bar).toHaveCount(0);
  expect(errors).toEqual([]);
});

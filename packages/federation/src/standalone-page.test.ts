import { fileURLToPath } from 'node:url';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The legal remote's own dev server (`pnpm --filter legal dev`), on a free port.
let vite: ViteDevServer;
let origin: string;

beforeAll(async () => {
  // The federation plugin leaves itself out under a test runner unless told otherwise; here it is what is tested.
  process.env.MFE_VITE_NO_TEST_ENV_CHECK = 'true';
  const remote = fileURLToPath(new URL('../../../legal', import.meta.url));
  vite = await createServer({
    root: remote,
    configFile: `${remote}/vite.config.mts`,
    configLoader: 'runner',
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false },
    logLevel: 'error',
  });
  await vite.listen();
  origin = vite.resolvedUrls!.local[0]!.replace(/\/$/, '');
}, 60_000);

afterAll(async () => {
  delete process.env.MFE_VITE_NO_TEST_ENV_CHECK;
  await vite?.close();
});

describe("a remote's standalone page on its dev server", () => {
  it.each(['/privacy', '/terms', '/'])('answers %s with the page that renders the remote', async (path) => {
    const response = await fetch(`${origin}${path}`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<title>legal remote (standalone)</title>');
    expect(html).toContain('<div id="root"></div>');
    expect(html).toMatch(/<script type="module" src="[^"]*standalone-entry[^"]*">/);
  });

  it('renders every page of the route table that is the remote’s, once federation has started', async () => {
    const bootstrap = await (await fetch(`${origin}/standalone-entry.tsx`)).text();
    expect(bootstrap).toContain('initHost');
    const entry = await (await fetch(`${origin}/standalone-entry.tsx?mf-entry-bootstrap`)).text();
    expect(entry).toContain('renderStandalone("legal"');
    expect(entry).toContain('"/src/pages/privacy-page.tsx"');
    expect(entry).toContain('"/src/pages/terms-page.tsx"');
  });

  it('leaves a missing file a 404, not the page', async () => {
    const response = await fetch(`${origin}/missing.png`, { headers: { accept: 'image/*' } });
    expect(response.status).toBe(404);
  });
});

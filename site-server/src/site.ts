import type { AddressInfo } from 'node:net';
import { createSiteServer, type SiteServerOptions } from './server.ts';

/**
 * What other programs may use of the site server, and nothing else: the release checks start a site of their own
 * here and render pages as the server does, and write preview links with the site's public address; the React floor of `pnpm perf` is served with the site's settings.
 */

export { createPageRenderer } from './pages/prerender.ts';
export { sharedModuleConflicts, sharedModulesOf } from './pages/shared-modules.ts';
export { keptPageForms, sendPageForm } from './pages/page-forms.ts';
export { addSecurityHeaders, answerCompression } from './http/security-headers.ts';
export { revalidate, staticOptions } from './remotes/builds.ts';
export { siteOrigin } from './http/site-origin.ts';

/** A site server on a free port of 127.0.0.1, without the API: its address, and how to stop it. */
export async function startSite(options: SiteServerOptions): Promise<{ url: string; close: () => Promise<void> }> {
  const app = await createSiteServer(options);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

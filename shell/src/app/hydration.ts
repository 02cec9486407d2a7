import { notFoundPrerenderedRoute, pageRoutes } from '@gift/content';
import type { PageSource } from './page-source.ts';
import { currentEntry } from './remotes.ts';

/**
 * How the shell starts on the server's HTML in `container`:
 * - `hydrate`: the page is loaded (into `source`) and is the build it was rendered with;
 * - `render`: a fresh render, when there is no page of a route in the HTML, or its remote has been redeployed since
 *   (the manifest names another entry, whose page has loaded): never a mismatch;
 * - `keep`: the server rendered the page, but its remote cannot be loaded now (failed, timed out, refused or gone
 *   from the manifest). The server's page stays as it is and works as it does without scripts (links, form posts,
 *   disclosures): rendering over it would replace what the visitor reads, and anything typed, with the unavailable
 *   state. The failure is reported where it happened (`remotes.ts`).
 *
 * The prerenderer records on #root which route it rendered and with which build of its remote.
 */
export type StartMode = 'hydrate' | 'render' | 'keep';

export async function startMode(container: HTMLElement, source: PageSource): Promise<StartMode> {
  const { prerenderedRoute, remoteEntry } = container.dataset;
  if (prerenderedRoute === notFoundPrerenderedRoute) return 'hydrate';
  const route = pageRoutes.find((candidate) => candidate.path === prerenderedRoute);
  if (!route) return 'render';
  if (!(await source.load(route)).ok) return 'keep';
  try {
    return (await currentEntry(route.remote)) === remoteEntry ? 'hydrate' : 'render';
  } catch {
    return 'keep';
  }
}

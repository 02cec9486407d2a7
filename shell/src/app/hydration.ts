import { notFoundPrerenderedRoute, pageRoutes } from '@gift/content';
import type { PageSource } from './page-source.ts';
import { currentEntry } from './remotes.ts';

/**
 * Whether the prerendered HTML in `container` can be hydrated: its page is loaded (into `source`) and is the
 * build it was rendered with. The prerenderer records on #root which route it rendered and with which build of
 * its remote; a remote redeployed since (the manifest names another entry) or failing now gets a fresh render,
 * never a mismatch.
 */
export async function canHydrate(container: HTMLElement, source: PageSource): Promise<boolean> {
  const { prerenderedRoute, remoteEntry } = container.dataset;
  if (prerenderedRoute === notFoundPrerenderedRoute) return true;
  const route = pageRoutes.find((candidate) => candidate.path === prerenderedRoute);
  if (!route) return false;
  try {
    if ((await currentEntry(route.remote)) !== remoteEntry) return false;
  } catch {
    return false;
  }
  return (await source.load(route)).ok;
}

import type { HydrationState } from 'react-router';
import { pageRoutes } from '@gift/content';
import { notFoundRouteId } from './router.tsx';
import { currentEntry, loadPage } from './remotes.ts';

/**
 * What the router needs to hydrate a prerendered page, or undefined when it must render afresh instead.
 * The prerenderer records on #root which route it rendered and with which build of its remote; a remote
 * redeployed since (the manifest names another entry) or failing now gets a fresh render, never a mismatch.
 */
export async function prerenderedState(container: HTMLElement): Promise<HydrationState | undefined> {
  const { prerenderedRoute, remoteEntry } = container.dataset;
  if (prerenderedRoute === notFoundRouteId) return { loaderData: {} };
  const route = pageRoutes.find((candidate) => candidate.path === prerenderedRoute);
  if (!route) return undefined;
  try {
    if ((await currentEntry(route.remote)) !== remoteEntry) return undefined;
  } catch {
    return undefined;
  }
  const page = await loadPage(route.remote, route.module);
  return page.ok ? { loaderData: { [route.path]: page } } : undefined;
}

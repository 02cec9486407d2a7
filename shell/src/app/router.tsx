import { createBrowserRouter, type HydrationState, type RouteObject } from 'react-router';
import { notFoundMetadata, pageRoutes, type PageRoute } from '@gift/content';
import { NotFoundPage } from './not-found-page.tsx';
import { RemotePage } from './remote-page.tsx';
import { PageLoading } from './remote-unavailable.tsx';
import { loadPage, type PageLoad } from './remotes.ts';
import { RootLayout, type RouteHandle } from './root-layout.tsx';

export type LoadPage = (route: PageRoute) => Promise<PageLoad>;

export const notFoundRouteId = 'not-found';

export const notFoundHandle = { ...notFoundMetadata } satisfies RouteHandle;

/**
 * The site's one route table: each page loads only its own remote's module, on demand. The browser loads
 * remotes through federation; the prerenderer passes the same pages from their server builds.
 */
export function createRoutes(load: LoadPage): RouteObject[] {
  return [
    {
      id: 'root',
      element: <RootLayout />,
      children: [
        ...pageRoutes.map((route): RouteObject => ({
          id: route.path,
          path: route.path,
          // Waiting here lets the router scroll and restore positions against the rendered page.
          loader: () => load(route),
          element: <RemotePage key={route.path} route={route} />,
          HydrateFallback: PageLoading,
          handle: {
            title: route.title,
            description: route.description,
            ownHeader: 'ownHeader' in route ? route.ownHeader : false,
          } satisfies RouteHandle,
        })),
        { id: notFoundRouteId, path: '*', element: <NotFoundPage />, handle: notFoundHandle },
      ],
    },
  ];
}

export const routes = createRoutes((route) => loadPage(route.remote, route.module));

export const createSiteRouter = (hydrationData?: HydrationState) => createBrowserRouter(routes, { hydrationData });

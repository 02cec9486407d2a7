import { createBrowserRouter, type RouteObject } from 'react-router';
import { pageRoutes } from '@gift/content';
import { NotFoundPage } from './not-found-page.tsx';
import { RemotePage } from './remote-page.tsx';
import { PageLoading } from './remote-unavailable.tsx';
import { loadPage } from './remotes.ts';
import { RootLayout, type RouteHandle } from './root-layout.tsx';

/** The site's one route table: each page loads only its own remote's module, on demand. */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      ...pageRoutes.map((route): RouteObject => ({
        path: route.path,
        // Waiting here lets the router scroll and restore positions against the rendered page.
        loader: () => loadPage(route.remote, route.module),
        element: <RemotePage key={route.path} route={route} />,
        HydrateFallback: PageLoading,
        handle: {
          title: route.title,
          description: route.description,
          ownHeader: 'ownHeader' in route ? route.ownHeader : false,
        } satisfies RouteHandle,
      })),
      {
        path: '*',
        element: <NotFoundPage />,
        handle: {
          title: 'Page not found',
          description: 'The page you were looking for does not exist.',
        } satisfies RouteHandle,
      },
    ],
  },
];

export const createSiteRouter = () => createBrowserRouter(routes);

import { Route, Routes, useLocation } from 'react-router';
import { pageRoutes, routeAt, type PageRoute } from '@gift/content';
import { NotFoundPage } from './not-found-page.tsx';
import { RemotePage } from './remote-page.tsx';
import { RootLayout } from './root-layout.tsx';

/**
 * The site's one route table: each page comes from its own remote, on demand (see page-source.ts). The browser
 * renders it in BrowserSiteRouter, the prerenderer in a StaticRouter. `actionData` is what a native form post
 * came back with, for the page the visitor landed on (see `useActionData`).
 */
export function SiteRoutes({ actionData }: { actionData?: unknown }) {
  return (
    <Routes>
      <Route element={<RootLayout actionData={actionData} />}>
        {pageRoutes.map((route) => (
          <Route
            key={route.path}
            path={route.path}
            // Addresses are matched as `matchRoute` does: another spelling of a page is the not-found route,
            // which sends it to the page.
            caseSensitive
            element={<OwnedPage key={route.path} route={route} />}
          />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

/** A route's page at an address it owns; under a `/*` pattern, an address it does not own is no page. */
function OwnedPage({ route }: { route: PageRoute }) {
  const { pathname } = useLocation();
  return routeAt(pathname) === route ? <RemotePage route={route} /> : <NotFoundPage />;
}

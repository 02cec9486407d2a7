import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import type { PageRoute } from '@gift/content';
import { createPageSource, PageSourceContext, type LoadPage } from './app/page-source.ts';
import { routeFor } from './app/navigation.tsx';
import { SiteRoutes } from './app/router.tsx';

export type { LoadPage };

/**
 * The shell's server build: renders one address of the site, with the page the caller loaded from its
 * remote's server build, to the HTML that the browser then hydrates with the same routes; `actionData` is the
 * outcome of a native form post, which the caller writes into the document for the browser to hydrate with.
 */
export async function renderPage(
  url: string,
  load: LoadPage,
  actionData?: unknown,
): Promise<{ status: number; html: string }> {
  const { pathname, search } = new URL(url);
  const route: PageRoute | undefined = routeFor(pathname);
  const source = createPageSource(load);
  // Loaded before rendering: the server renders in one pass and must not meet a page still loading.
  if (route) await source.load(route);
  const html = renderToString(
    <StrictMode>
      <PageSourceContext value={source}>
        <StaticRouter location={pathname + search}>
          <SiteRoutes actionData={actionData} />
        </StaticRouter>
      </PageSourceContext>
    </StrictMode>,
  );
  return { status: route ? 200 : 404, html };
}

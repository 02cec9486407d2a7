import { StrictMode } from 'react';
import { prerender } from 'react-dom/static';
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
  // Loaded before rendering, so that the page's own module does not hold up the render.
  if (route) await source.load(route);
  // Waits for everything that suspends (a part of a page whose code the browser loads later, see laterPart in
  // @gift/ui) and writes each part in its place: no boundary is left for a script to fill in (none may run inline),
  // however large it is.
  let failure: unknown;
  const { prelude } = await prerender(
    <StrictMode>
      <PageSourceContext value={source}>
        <StaticRouter location={pathname + search}>
          <SiteRoutes actionData={actionData} />
        </StaticRouter>
      </PageSourceContext>
    </StrictMode>,
    {
      progressiveChunkSize: Number.POSITIVE_INFINITY,
      // React would render a part that throws in the browser instead, and write the error into the page: a page
      // the server cannot render whole is an error of the build, not a page to keep.
      onError: (error) => {
        failure ??= error;
      },
    },
  );
  const html = await new Response(prelude).text();
  if (failure) throw failure;
  return { status: route ? 200 : 404, html };
}

import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router';
import { createRoutes, type LoadPage } from './app/router.tsx';

export type { LoadPage };

/**
 * The shell's server build: renders one address of the site, with the page the caller loaded from its
 * remote's server build, to the HTML that the browser then hydrates with the same routes.
 */
export async function renderPage(url: string, load: LoadPage): Promise<{ status: number; html: string }> {
  const handler = createStaticHandler(createRoutes(load));
  const context = await handler.query(new Request(url));
  if (context instanceof Response) throw new Error(`${url} redirects; only pages can be prerendered`);
  const router = createStaticRouter(handler.dataRoutes, context);
  const html = renderToString(
    <StrictMode>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </StrictMode>,
  );
  return { status: context.statusCode, html };
}

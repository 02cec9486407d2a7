import './tokens.css';
import { StrictMode, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Link, Outlet, RouterProvider } from 'react-router';
import { pageModuleFile, routesOf } from '@gift/content';
import type { RemoteName } from '@gift/federation';

/**
 * Renders a remote's pages on their own (`pnpm --filter <remote> dev`), so a team can work without the shell: the
 * routes the route table gives the remote, each with the page module its `module` names, from
 * `import.meta.glob('/src/pages/*.tsx')` in the remote (keys start at its root).
 */
export function renderStandalone(remote: RemoteName, modules: Record<string, { default?: ComponentType }>) {
  const pages = routesOf(remote).map(({ path, module }) => {
    const file = pageModuleFile(module).replace('./src/', '/src/');
    const Page = modules[file]?.default;
    if (!Page) throw new Error(`The route ${path} names ${module}, but ${file} has no default export`);
    return { path, Page };
  });
  const remoteName = remote.replace('_', ' ');
  const Layout = () => (
    <>
      <nav aria-label={`${remoteName} pages`} style={{ padding: '0.5rem 1rem', borderBottom: '1px solid #ddd' }}>
        <strong>{remoteName} remote, standalone: </strong>
        {pages.map(({ path }) => (
          <Link key={path} to={path} style={{ marginRight: '1rem' }}>
            {path}
          </Link>
        ))}
      </nav>
      <main id="main">
        <Outlet />
      </main>
    </>
  );
  const router = createBrowserRouter([
    {
      element: <Layout />,
      children: [
        ...(pages.some(({ path }) => path === '/')
          ? []
          : [{ index: true, element: <p style={{ padding: '1rem' }}>Choose a page above.</p> }]),
        ...pages.map(({ path, Page }) => ({ path, element: <Page /> })),
      ],
    },
  ]);
  const container = document.getElementById('root');
  if (!container) throw new Error('The page has no #root element');
  // In the brand font at once, as the composed site's pages after a visitor's first (tokens.css).
  document.documentElement.dataset.font = '';
  createRoot(container).render(
    <StrictMode>
      <RouterProvider router={router} />
    </StrictMode>,
  );
}

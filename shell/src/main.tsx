import '@gift/ui/tokens.css';
import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { prerenderedState } from './app/hydration.ts';
import { createSiteRouter } from './app/router.tsx';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element');

const hydrationData = await prerenderedState(container);
const app = (
  <StrictMode>
    <RouterProvider router={createSiteRouter(hydrationData)} />
  </StrictMode>
);
if (hydrationData) {
  // A transition lets React hydrate in slices, so the main thread stays free for input.
  startTransition(() => {
    hydrateRoot(container, app);
  });
} else {
  createRoot(container).render(app);
}

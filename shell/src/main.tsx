import '@gift/ui/tokens.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { createSiteRouter } from './app/router.tsx';

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element');

createRoot(container).render(
  <StrictMode>
    <RouterProvider router={createSiteRouter()} />
  </StrictMode>,
);

import '@gift/ui/tokens.css';
import { startTransition, StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { startMode } from './app/hydration.ts';
import { PageSourceContext, remotePageSource } from './app/page-source.ts';
import { startFieldData } from './app/field-data.ts';
import { BrowserSiteRouter } from './app/navigation.tsx';
import { SiteRoutes } from './app/router.tsx';

// The shell's app has started (tests of a late remote wait for it: the remote's code is not needed for it).
performance.mark('shell-started');

// Field data: errors from the first moment, web vitals once the page is idle (a build with VITE_FIELD_DATA=off has none).
if (import.meta.env.VITE_FIELD_DATA !== 'off') startFieldData();

// The browser paints the server's HTML (on `/` the first slide with the text around it) before hydration takes
// the main thread: a busy phone may not have presented the frame the loader waited for. A hidden tab runs no
// animation frames, hence the timer.
await new Promise((resolve) => {
  requestAnimationFrame(() => setTimeout(resolve));
  setTimeout(resolve, 100);
});

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element');

const source = remotePageSource();
// The outcome of a native form post that the server rendered this page with: hydration must see the same.
const actionData: unknown = container.dataset.actionData ? JSON.parse(container.dataset.actionData) : undefined;
const mode = await startMode(container, source);
const app = (
  <StrictMode>
    <PageSourceContext value={source}>
      <BrowserSiteRouter>
        <SiteRoutes actionData={actionData} />
      </BrowserSiteRouter>
    </PageSourceContext>
  </StrictMode>
);
if (mode === 'hydrate') {
  // A transition lets React hydrate in slices, so the main thread stays free for input.
  startTransition(() => {
    hydrateRoot(container, app);
  });
} else if (mode === 'render') {
  createRoot(container).render(app);
} else {
  // The server's page stays, working as it does without scripts (hydration.ts). Tests and the release checks read
  // that the shell has started: `true` once a page has hydrated or rendered (root-layout.tsx), `kept` here.
  document.documentElement.dataset.ready = 'kept';
}

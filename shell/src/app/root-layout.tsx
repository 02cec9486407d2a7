import { Suspense, useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { documentTitle, notFoundMetadata } from '@gift/content';
import { ActionDataContext } from '@gift/router';
import { fetchBrandFont, useBrandFontFromTheNextPage } from './brand-font.ts';
import { useDocumentMetadata } from './document-metadata.ts';
import { fieldDataView, loadVitalsWhenIdle } from './field-data.ts';
import { Footer } from './footer.tsx';
import { useHashScroll } from './hash-scroll.ts';
import { Header } from './header.tsx';
import { NotificationOutlet } from './notification-outlet.tsx';
import { useSettledPage } from './page-source.ts';
import { startFederationWhenIdle } from './remotes.ts';
import { usePrefetchOnIntent } from './prefetch.ts';
import { PageLoading } from './remote-unavailable.tsx';
import { RouteAnnouncer } from './route-announcer.tsx';
import { routeFor, useNavigationPending } from './navigation.tsx';
import { ScrollRestoration } from './scroll-restoration.ts';
import styles from './root-layout.module.css';

const mainId = 'main';

/**
 * Tells tests and tools that the page is interactive, and when: once the page in `main` has hydrated (or rendered in
 * the browser). It sits inside the page's Suspense boundary because React hydrates what is inside one in a pass of its
 * own, after the header and footer: an effect outside it ran before the page's controls were attached to React.
 * Then the brand font's file comes, and the federation runtime for the next client-side navigation.
 */
function InteractiveMark() {
  useEffect(() => {
    document.documentElement.dataset.ready = 'true';
    performance.mark('hydrated');
    fetchBrandFont();
    startFederationWhenIdle();
    if (import.meta.env.VITE_FIELD_DATA !== 'off') loadVitalsWhenIdle();
  }, []);
  return null;
}

export function RootLayout({ actionData }: { actionData?: unknown }) {
  const { pathname, key } = useLocation();
  // A native post's outcome belongs to the page it redirected to, not to pages visited after it.
  const [landedOn] = useState(key);
  const route = routeFor(pathname);
  const page = useSettledPage(route);
  const pending = useNavigationPending();
  const { title, description } = route ?? notFoundMetadata;
  useHashScroll();
  useDocumentMetadata({ title, description, path: pathname });
  usePrefetchOnIntent();
  useBrandFontFromTheNextPage(pathname);
  useEffect(() => {
    if (import.meta.env.VITE_FIELD_DATA !== 'off') fieldDataView(pathname);
  }, [pathname]);

  return (
    <>
      <a className={styles.skipLink} href={`#${mainId}`}>
        Skip to main content
      </a>
      {pending && <div className={styles.progress} aria-hidden="true" />}
      {/* A page with its own header still gets the shell's when it cannot load. */}
      {!(route?.ownHeader && page?.ok !== false) && <Header />}
      <main id={mainId} className={styles.main} tabIndex={-1}>
        <Suspense fallback={<PageLoading />}>
          <ActionDataContext value={key === landedOn ? actionData : undefined}>
            <Outlet />
          </ActionDataContext>
          <ScrollRestoration />
          <InteractiveMark />
        </Suspense>
      </main>
      <Footer />
      <NotificationOutlet />
      <RouteAnnouncer title={documentTitle(title)} mainId={mainId} />
    </>
  );
}

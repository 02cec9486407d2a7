import { useEffect } from 'react';
import { Outlet, ScrollRestoration, useLocation, useMatches, useNavigation } from 'react-router';
import { documentTitle, site } from '@gift/content';
import { useDocumentMetadata } from './document-metadata.ts';
import { Footer } from './footer.tsx';
import { useHashScroll } from './hash-scroll.ts';
import { Header } from './header.tsx';
import { NotificationOutlet } from './notification-outlet.tsx';
import type { PageLoad } from './remotes.ts';
import { usePrefetchOnIntent } from './prefetch.ts';
import { RouteAnnouncer } from './route-announcer.tsx';
import styles from './root-layout.module.css';

export interface RouteHandle {
  title: string;
  description: string;
  ownHeader?: boolean;
}

const mainId = 'main';

function useCurrentRoute() {
  const match = useMatches().at(-1);
  return { handle: match?.handle as RouteHandle | undefined, page: match?.loaderData as PageLoad | undefined };
}

export function RootLayout() {
  const { handle, page } = useCurrentRoute();
  const navigation = useNavigation();
  const { pathname } = useLocation();
  useHashScroll();
  useDocumentMetadata({ title: handle?.title ?? site.brand, description: handle?.description ?? '', path: pathname });
  usePrefetchOnIntent();
  // Tells tests and tools that the page is interactive (hydrated, or rendered in the browser).
  useEffect(() => {
    document.documentElement.dataset.ready = 'true';
  }, []);
  const title = handle ? documentTitle(handle.title) : site.brand;

  return (
    <>
      <a className={styles.skipLink} href={`#${mainId}`}>
        Skip to main content
      </a>
      {navigation.state === 'loading' && <div className={styles.progress} aria-hidden="true" />}
      {/* A page with its own header still gets the shell's when it cannot load. */}
      {!(handle?.ownHeader && page?.ok !== false) && <Header />}
      <main id={mainId} className={styles.main} tabIndex={-1}>
        <Outlet />
      </main>
      <Footer />
      <NotificationOutlet />
      <RouteAnnouncer title={title} mainId={mainId} />
      <ScrollRestoration />
    </>
  );
}

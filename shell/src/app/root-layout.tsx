import { Outlet, ScrollRestoration, useMatches, useNavigation } from 'react-router';
import { site } from '@gift/content';
import { Footer } from './footer.tsx';
import { useHashScroll } from './hash-scroll.ts';
import { Header } from './header.tsx';
import { NotificationOutlet } from './notification-outlet.tsx';
import type { PageLoad } from './remotes.ts';
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
  useHashScroll();
  const title = handle ? `${handle.title} | ${site.brand}` : site.brand;

  return (
    <>
      <title>{title}</title>
      {handle && <meta name="description" content={handle.description} />}
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

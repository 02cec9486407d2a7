import { useEffect } from 'react';
import { matchPath } from 'react-router';
import { pageRoutes } from '@gift/content';
import { loadPage } from './remotes.ts';

/** The page route a same-origin link leads to, if any. */
export function routeForHref(href: string, origin: string) {
  const url = new URL(href, origin);
  if (url.origin !== origin) return undefined;
  return pageRoutes.find((route) => matchPath(route.path, url.pathname));
}

/**
 * Loads a link's remote page module as soon as the visitor shows intent (pointer over it, or keyboard focus),
 * so that the click finds the page ready. `loadPage` keeps each load, so this costs one fetch at most.
 */
export function usePrefetchOnIntent() {
  useEffect(() => {
    const prefetch = (event: Event) => {
      const link = (event.target as Element | null)?.closest?.('a[href]');
      if (!(link instanceof HTMLAnchorElement)) return;
      const route = routeForHref(link.href, window.location.origin);
      if (route) void loadPage(route.remote, route.module);
    };
    document.addEventListener('pointerover', prefetch, { passive: true });
    document.addEventListener('focusin', prefetch);
    return () => {
      document.removeEventListener('pointerover', prefetch);
      document.removeEventListener('focusin', prefetch);
    };
  }, []);
}

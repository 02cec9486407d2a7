import { useEffect } from 'react';
import { routeFor } from './navigation.tsx';
import { usePageSource } from './page-source.ts';

/** The page route a same-origin link leads to, if any. */
export function routeForHref(href: string, origin: string) {
  const url = new URL(href, origin);
  if (url.origin !== origin) return undefined;
  return routeFor(url.pathname);
}

/**
 * Loads a link's remote page module as soon as the visitor shows intent (pointer over it, or keyboard focus),
 * so that the click finds the page ready. The page source keeps each load, so this costs one fetch at most.
 */
export function usePrefetchOnIntent() {
  const source = usePageSource();
  useEffect(() => {
    const prefetch = (event: Event) => {
      const link = (event.target as Element | null)?.closest?.('a[href]');
      if (!(link instanceof HTMLAnchorElement)) return;
      const route = routeForHref(link.href, window.location.origin);
      if (route) void source.load(route);
    };
    document.addEventListener('pointerover', prefetch, { passive: true });
    document.addEventListener('focusin', prefetch);
    return () => {
      document.removeEventListener('pointerover', prefetch);
      document.removeEventListener('focusin', prefetch);
    };
  }, [source]);
}

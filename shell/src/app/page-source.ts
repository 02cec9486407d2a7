import { createContext, use, useSyncExternalStore } from 'react';
import type { PageRoute } from '@gift/content';
import { loadPage, reloadPage, type PageLoad } from './remotes.ts';

/**
 * Where the routes get each page's module: in the browser from its remote at run time, on the server from the
 * remote's server build. It also tells the layout, synchronously, which pages have loaded (or failed to).
 */
export interface PageSource {
  /** The page's result once it has loaded or failed; undefined while it has not. */
  settled(route: PageRoute): PageLoad | undefined;
  /** Loads the page, or joins the load already running; never rejects. */
  load(route: PageRoute): Promise<PageLoad>;
  /** Loads a failed page again; its old result stands until the new one is there. */
  retry(route: PageRoute): Promise<PageLoad>;
  subscribe(listener: () => void): () => void;
}

export type LoadPage = (route: PageRoute) => Promise<PageLoad>;

/** A source over `load`, remembering each page's result so that rendering never waits for it twice. */
export function createPageSource(load: LoadPage, reload: LoadPage = load): PageSource {
  const results = new Map<string, PageLoad>();
  // One promise per page, so that a component suspended on it sees the same one when React renders again.
  const loads = new Map<string, Promise<PageLoad>>();
  const listeners = new Set<() => void>();
  const keep = (route: PageRoute) => (result: PageLoad) => {
    results.set(route.path, result);
    listeners.forEach((listener) => listener());
    return result;
  };
  return {
    settled: (route) => results.get(route.path),
    load(route) {
      let pending = loads.get(route.path);
      if (!pending) {
        pending = load(route).then(keep(route));
        loads.set(route.path, pending);
      }
      return pending;
    },
    retry(route) {
      const pending = reload(route).then(keep(route));
      loads.set(route.path, pending);
      return pending;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The browser's source: pages come from their remotes through federation. */
export const remotePageSource = () =>
  createPageSource(
    (route) => loadPage(route.remote, route.module),
    (route) => reloadPage(route.remote, route.module),
  );

export const PageSourceContext = createContext<PageSource | null>(null);

export function usePageSource(): PageSource {
  const source = use(PageSourceContext);
  if (!source) throw new Error('usePageSource needs a PageSourceContext');
  return source;
}

/** The route's page result once settled; the component re-renders when it settles or is retried. */
export function useSettledPage(route: PageRoute | undefined): PageLoad | undefined {
  const source = usePageSource();
  const settled = () => (route ? source.settled(route) : undefined);
  return useSyncExternalStore(source.subscribe, settled, settled);
}

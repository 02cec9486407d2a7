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

/** A promise that says when it has settled, the way React's `use` reads it without suspending. */
type TrackedLoad = Promise<PageLoad> & { status?: 'fulfilled'; value?: PageLoad };

/** A source over `load`, remembering each page's result so that rendering never waits for it twice. */
export function createPageSource(load: LoadPage, reload: LoadPage = load): PageSource {
  const results = new Map<string, PageLoad>();
  // One promise per page, so that a component suspended on it sees the same one when React renders again.
  const loads = new Map<string, TrackedLoad>();
  const listeners = new Set<() => void>();
  const track = (route: PageRoute, loading: Promise<PageLoad>): TrackedLoad => {
    const tracked: TrackedLoad = loading.then((result) => {
      Object.assign(tracked, { status: 'fulfilled', value: result });
      results.set(route.path, result);
      loads.set(route.path, tracked);
      listeners.forEach((listener) => listener());
      return result;
    });
    return tracked;
  };
  return {
    settled: (route) => results.get(route.path),
    load(route) {
      let pending = loads.get(route.path);
      if (!pending) {
        pending = track(route, load(route));
        loads.set(route.path, pending);
      }
      return pending;
    },
    // The old result stays what `load` gives until the new one is there.
    retry: (route) => track(route, reload(route)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The browser's source: pages come from their remotes through federation. */
export const remotePageSource = () =>
  createPageSource(
    (route) => loadPage(route.remote, route.module, route.path),
    (route) => reloadPage(route.remote, route.module),
  );

export const PageSourceContext = createContext<PageSource | null>(null);

export function usePageSource(): PageSource {
  const source = use(PageSourceContext);
  if (!source) throw new Error('usePageSource needs a PageSourceContext');
  return source;
}

/**
 * The route's page: suspends until it has loaded, and renders again when a retry brings a new result. A page
 * already loaded (prerendered, prefetched, visited) renders at once.
 */
export function usePage(route: PageRoute): PageLoad {
  const source = usePageSource();
  useSettledPage(route);
  return use(source.load(route));
}

/** The route's page result once settled; the component re-renders when it settles or is retried. */
export function useSettledPage(route: PageRoute | undefined): PageLoad | undefined {
  const source = usePageSource();
  const settled = () => (route ? source.settled(route) : undefined);
  return useSyncExternalStore(source.subscribe, settled, settled);
}

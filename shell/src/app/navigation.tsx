import { createContext, use, useLayoutEffect, useState, useTransition, type ReactNode } from 'react';
import { Router, UNSAFE_createBrowserHistory as createBrowserHistory } from 'react-router';
import { routeAt, type PageRoute } from '@gift/content';

/** The route `pathname` shows, or undefined for the not-found page (the site's one rule: `matchRoute`). */
export const routeFor = (pathname: string): PageRoute | undefined => routeAt(pathname);

const NavigationPendingContext = createContext(false);

/** True while a navigation waits for its page's module; the previous page stays on screen meanwhile. */
export const useNavigationPending = () => use(NavigationPendingContext);

/**
 * The browser's router: react-router in declarative mode (its data router is 15 KiB more JavaScript on every
 * page). Each navigation renders in a transition, so a page still loading keeps the previous one on screen.
 */
export function BrowserSiteRouter({ children }: { children: ReactNode }) {
  const [history] = useState(() => createBrowserHistory({ window, v5Compat: true }));
  const [state, setState] = useState({ action: history.action, location: history.location });
  const [pending, startTransition] = useTransition();
  useLayoutEffect(() => history.listen((update) => startTransition(() => setState(update))), [history]);
  return (
    <NavigationPendingContext value={pending}>
      <Router navigator={history} location={state.location} navigationType={state.action}>
        {children}
      </Router>
    </NavigationPendingContext>
  );
}

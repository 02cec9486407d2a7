import { useEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router';

/** The link a page was left by, found again by its address and its place among the links with that address. */
interface FollowedLink {
  href: string;
  nth: number;
}

const linksTo = (href: string) =>
  [...document.querySelectorAll<HTMLAnchorElement>('a[href]')].filter((link) => link.getAttribute('href') === href);

/** Focuses the link once the page coming back has rendered it (a remote's content renders after the route does). */
function focusWhenRendered(followed: FollowedLink, fallback: () => void, timeoutMs = 3000): () => void {
  const focus = () => {
    const link = linksTo(followed.href)[followed.nth];
    if (!link) return false;
    link.focus({ preventScroll: true });
    // A link that cannot take focus now (in a menu that has closed): the start of the page, as for any visit.
    if (document.activeElement !== link) fallback();
    return true;
  };
  if (focus()) return () => {};
  const observer = new MutationObserver(() => {
    if (focus()) stop();
  });
  const timer = setTimeout(() => {
    stop();
    fallback();
  }, timeoutMs);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  observer.observe(document.body, { childList: true, subtree: true });
  return stop;
}

/**
 * Where focus goes after a client-side navigation: back or forward to a page left by a link, that link again (where
 * the visitor was, as a browser's own back does for a page it kept); any other visit, the start of the new page.
 */
export function useFocusAfterNavigation(focusStart: () => void) {
  const location = useLocation();
  const navigationType = useNavigationType();
  const followed = useRef(new Map<string, FollowedLink>());
  const currentKey = useRef(location.key);
  useEffect(() => {
    currentKey.current = location.key;
  }, [location.key]);
  const previousPath = useRef(location.pathname);

  useEffect(() => {
    const remember = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.('a[href]');
      const href = link?.getAttribute('href');
      if (!link || !href || href.startsWith('#')) return;
      followed.current.set(currentKey.current, { href, nth: linksTo(href).indexOf(link as HTMLAnchorElement) });
    };
    document.addEventListener('click', remember, true);
    return () => document.removeEventListener('click', remember, true);
  }, []);

  useEffect(() => {
    if (previousPath.current === location.pathname) return;
    previousPath.current = location.pathname;
    if (location.hash) return;
    const link = navigationType === 'POP' ? followed.current.get(location.key) : undefined;
    if (link) return focusWhenRendered(link, focusStart);
    focusStart();
  }, [location.pathname, location.hash, location.key, navigationType, focusStart]);
}

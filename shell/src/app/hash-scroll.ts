import { useEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router';

/**
 * Scrolls to the element with `id` once it exists (remote content renders after the route does), and moves focus to
 * it, as following a link to a fragment does without scripts: the next Tab goes on from that section, not from the
 * link that led there (in a menu that has closed since) or the top of the page.
 */
export function scrollToWhenRendered(id: string, timeoutMs = 8000): () => void {
  const scroll = () => {
    const target = document.getElementById(id);
    if (!target) return false;
    // The sticky header is accounted for by `scroll-padding-top` on <html>.
    target.scrollIntoView({ block: 'start' });
    if (!target.matches('a[href], button, input, select, textarea, [tabindex]')) target.tabIndex = -1;
    target.focus({ preventScroll: true });
    return true;
  };
  if (scroll()) return () => {};
  const observer = new MutationObserver(() => {
    if (scroll()) stop();
  });
  const timer = setTimeout(() => stop(), timeoutMs);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
  }
  observer.observe(document.body, { childList: true, subtree: true });
  return stop;
}

/** On first load and on every link to `#section`, scroll that section into view when it appears. */
export function useHashScroll() {
  const location = useLocation();
  const navigationType = useNavigationType();
  const isFirstRender = useRef(true);

  useEffect(() => {
    const isFirst = isFirstRender.current;
    isFirstRender.current = false;
    // Back and forward keep the position the router restores.
    if (!location.hash || (navigationType === 'POP' && !isFirst)) return;
    return scrollToWhenRendered(decodeURIComponent(location.hash.slice(1)));
  }, [location.key, location.hash, navigationType]);
}

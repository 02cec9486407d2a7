import { useEffect, useLayoutEffect } from 'react';
import { useLocation, useNavigationType } from 'react-router';

const storageKey = 'scroll-positions';
let positions: Record<string, number> | undefined;

/** Scroll positions by history entry: kept in memory, saved for reloads when the page is hidden. */
function savedPositions(): Record<string, number> {
  if (!positions) {
    try {
      const stored: unknown = JSON.parse(sessionStorage.getItem(storageKey) ?? '{}');
      positions = typeof stored === 'object' && stored !== null ? (stored as Record<string, number>) : {};
    } catch {
      positions = {};
    }
  }
  return positions;
}

const currentEntryKey = () => (window.history.state as { key?: string } | null)?.key ?? 'default';

/** Input that means the visitor moves the page: after it, the page is theirs to scroll. */
const visitorInput = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

/**
 * Keeps the window at `top` for the next moments, unless the visitor scrolls. The page just left may move the window
 * once more after it has gone: in Firefox, framer-motion (the landing page's animations) finishes a measurement it began
 * there a frame or more later and puts back the scroll position it saw, which left the next page 858 px down.
 */
function holdScroll(top: number, forMs = 400) {
  const until = performance.now() + forMs;
  const stop = () => {
    window.removeEventListener('scroll', back);
    for (const type of visitorInput) window.removeEventListener(type, stop, true);
  };
  const back = () => {
    if (performance.now() > until) stop();
    else if (Math.abs(window.scrollY - top) > 1) window.scrollTo({ top, behavior: 'instant' });
  };
  window.addEventListener('scroll', back, { passive: true });
  for (const type of visitorInput) window.addEventListener(type, stop, { capture: true, passive: true });
  const timer = setTimeout(stop, forMs);
  return () => {
    clearTimeout(timer);
    stop();
  };
}

/**
 * Rendered beside the page, inside its Suspense boundary, so that it acts once the page is on screen.
 * What a full page load does for scrolling, for client-side navigation: a new page starts at the top (or at
 * its `#section`, see useHashScroll), and back, forward or reload return to where the visitor was on that entry.
 */
export function ScrollRestoration() {
  const location = useLocation();
  const navigationType = useNavigationType();

  useEffect(() => {
    window.history.scrollRestoration = 'manual';
    let frame = 0;
    const remember = () => {
      savedPositions()[currentEntryKey()] = window.scrollY;
      frame = 0;
    };
    const onScroll = () => {
      frame ||= requestAnimationFrame(remember);
    };
    const save = () => {
      try {
        sessionStorage.setItem(storageKey, JSON.stringify(savedPositions()));
      } catch {
        // Storage full or refused: positions are lost on reload only.
      }
    };
    // A link followed: this entry's position now, whether or not a frame has passed since the last scroll (WebKit tells
    // of a scroll at its next frame, which a quick click can come before: back then found no position).
    const rememberNow = () => {
      savedPositions()[currentEntryKey()] = window.scrollY;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('pagehide', save);
    document.addEventListener('click', rememberNow, true);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('pagehide', save);
      document.removeEventListener('click', rememberNow, true);
    };
  }, []);

  // Runs once the new page has rendered: a navigation commits only when its page's module has loaded.
  useLayoutEffect(() => {
    const saved = navigationType === 'POP' ? savedPositions()[location.key] : undefined;
    const top = saved ?? (!location.hash && navigationType !== 'POP' ? 0 : undefined);
    if (top === undefined) return;
    // Instant, as a page load is: the site's smooth scrolling is for moving within a page.
    window.scrollTo({ top, behavior: 'instant' });
    // A new page (a link followed, not back or a reload) stays at its top while the page left behind settles.
    return saved === undefined ? holdScroll(top) : undefined;
  }, [location.key, location.hash, navigationType]);

  return null;
}

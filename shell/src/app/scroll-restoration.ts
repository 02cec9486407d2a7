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
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('pagehide', save);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('pagehide', save);
    };
  }, []);

  // Runs once the new page has rendered: a navigation commits only when its page's module has loaded.
  useLayoutEffect(() => {
    const saved = navigationType === 'POP' ? savedPositions()[location.key] : undefined;
    // Instant, as a page load is: the site's smooth scrolling is for moving within a page.
    if (saved !== undefined) window.scrollTo({ top: saved, behavior: 'instant' });
    else if (!location.hash && navigationType !== 'POP') window.scrollTo({ top: 0, behavior: 'instant' });
  }, [location.key, location.hash, navigationType]);

  return null;
}

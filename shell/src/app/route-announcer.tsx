import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { useFocusAfterNavigation } from './focus-return.ts';

/**
 * After a client-side navigation, announces the new page's title and moves focus to its start, as a full page load
 * would for screen reader users; back to a page left by a link, to that link (`useFocusAfterNavigation`).
 */
export function RouteAnnouncer({ title, mainId }: { title: string; mainId: string }) {
  const location = useLocation();
  const [announcement, setAnnouncement] = useState('');
  const previousPath = useRef(location.pathname);

  useEffect(() => {
    if (previousPath.current === location.pathname) return;
    previousPath.current = location.pathname;
    setAnnouncement(title);
  }, [location.pathname, title]);
  useFocusAfterNavigation(useCallback(() => document.getElementById(mainId)?.focus({ preventScroll: true }), [mainId]));

  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true">
      {announcement}
    </div>
  );
}

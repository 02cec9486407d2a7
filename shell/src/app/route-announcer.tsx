import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';

/**
 * After a client-side navigation, moves focus to the start of the new page and announces its title,
 * as a full page load would for screen reader users.
 */
export function RouteAnnouncer({ title, mainId }: { title: string; mainId: string }) {
  const location = useLocation();
  const [announcement, setAnnouncement] = useState('');
  const previousPath = useRef(location.pathname);

  useEffect(() => {
    if (previousPath.current === location.pathname) return;
    previousPath.current = location.pathname;
    setAnnouncement(title);
    if (!location.hash) document.getElementById(mainId)?.focus({ preventScroll: true });
  }, [location.pathname, location.hash, title, mainId]);

  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true">
      {announcement}
    </div>
  );
}

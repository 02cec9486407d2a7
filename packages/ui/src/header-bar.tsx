import { useEffect, useRef, type MouseEvent, type ReactNode } from 'react';
import { Link, useLocation } from '@gift/router';
import { paths, site } from '@gift/content';
import { CloseIcon, GiftIcon, MenuIcon } from './icons.tsx';
import styles from './header-bar.module.css';

/** Classes for the items a header puts in its menu. */
export const headerItemClass = { link: styles.link, action: styles.action };

interface HeaderBarProps {
  /** Accessible name of the menu's navigation landmark. */
  menuLabel: string;
  menuId: string;
  /** The menu's `<li>` items. */
  children: ReactNode;
}

/** Closes the menu if it is open (a popover that is not open cannot be hidden again). */
function closeMenu(menu: HTMLElement | null) {
  if (menu?.matches(':popover-open')) menu.hidePopover();
}

/**
 * A sticky header: logo home and a menu that, at 768 px and below, a toggle opens and closes. The menu is a
 * native popover, so the toggle works from first paint and without JavaScript, and the browser gives the toggle
 * its expanded state and closes the menu on Escape (focus back on the toggle) or a tap outside it. Pressing an item
 * or navigating closes it too; before hydration the page's early script closes it on an item (see early-script.ts
 * in the site server).
 */
export function HeaderBar({ menuLabel, menuId, children }: HeaderBarProps) {
  const menuRef = useRef<HTMLElement>(null);
  const location = useLocation();

  // Closed when the page changes, but not when hydration mounts the header: a menu opened before stays open.
  const shownAt = useRef(location.key);
  useEffect(() => {
    if (shownAt.current === location.key) return;
    shownAt.current = location.key;
    closeMenu(menuRef.current);
  }, [location.key]);

  const closeOnItem = (event: MouseEvent) => {
    if ((event.target as Element).closest('a')) closeMenu(menuRef.current);
  };

  return (
    <header className={styles.header}>
      <div className={styles.bar}>
        <Link to={paths.home} className={styles.logo} aria-label={`${site.brand} home`}>
          <GiftIcon width={28} height={28} />
          {site.brand}
        </Link>
        <button type="button" className={styles.toggle} popoverTarget={menuId} aria-label="Menu">
          <MenuIcon className={styles.whenClosed} />
          <CloseIcon className={styles.whenOpen} />
        </button>
        {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-noninteractive-element-interactions */}
        <nav
          ref={menuRef}
          id={menuId}
          popover="auto"
          className={styles.nav}
          aria-label={menuLabel}
          onClick={closeOnItem}
        >
          <ul className={styles.menu}>{children}</ul>
        </nav>
      </div>
    </header>
  );
}

import { useEffect, useRef, type ReactNode } from 'react';
import { Link, useLocation } from '@gift/router';
import { paths, site } from '@gift/content';
import { useMenu } from '@gift/store';
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

/**
 * A sticky header: logo home and a menu that, at 768 px and below, a toggle opens and closes.
 * Pressing an item, navigating or pressing Escape closes it; Escape gives focus back to the toggle.
 */
export function HeaderBar({ menuLabel, menuId, children }: HeaderBarProps) {
  const { open, setOpen, toggle } = useMenu();
  const toggleRef = useRef<HTMLButtonElement>(null);
  const location = useLocation();

  useEffect(() => setOpen(false), [location.key, setOpen]);

  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggleRef.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open, setOpen]);

  return (
    <header className={styles.header}>
      <div className={styles.bar}>
        <Link to={paths.home} className={styles.logo} aria-label={`${site.brand} home`}>
          <GiftIcon width={28} height={28} />
          {site.brand}
        </Link>
        <button
          ref={toggleRef}
          type="button"
          className={styles.toggle}
          aria-expanded={open}
          aria-controls={menuId}
          aria-label={open ? 'Close menu' : 'Open menu'}
          onClick={toggle}
        >
          {open ? <CloseIcon /> : <MenuIcon />}
        </button>
        {/* Any link pressed in the menu closes it. */}
        {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-noninteractive-element-interactions */}
        <nav
          id={menuId}
          className={styles.nav}
          data-open={open}
          aria-label={menuLabel}
          onClick={(event) => {
            if ((event.target as Element).closest('a')) setOpen(false);
          }}
        >
          <ul className={styles.menu}>{children}</ul>
        </nav>
      </div>
    </header>
  );
}

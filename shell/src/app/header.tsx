import { useEffect, useRef } from 'react';
import { Link, useLocation } from 'react-router';
import { headerNav, paths, site } from '@gift/content';
import { useMenu } from '@gift/store';
import { CloseIcon, GiftIcon, MenuIcon } from '@gift/ui';
import styles from './header.module.css';

const menuId = 'site-menu';

/** The shared header: logo, section menu, and a toggle for it at 768 px and below. */
export function Header() {
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
        <nav id={menuId} className={styles.nav} data-open={open} aria-label="Main">
          <ul className={styles.menu}>
            {headerNav.map((item) => (
              <li key={item.label}>
                <Link to={item.to} className={styles.link} onClick={() => setOpen(false)}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </header>
  );
}

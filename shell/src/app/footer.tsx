import { Link } from 'react-router';
import { footerNav, site } from '@gift/content';
import styles from './footer.module.css';

export function Footer() {
  return (
    <footer className={styles.footer}>
      <div className={styles.inner}>
        <nav aria-label="Legal">
          <ul className={styles.links}>
            {footerNav.map((item) => (
              <li key={item.label}>
                <Link to={item.to}>{item.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <p className={styles.copyright}>
          © {site.copyrightYear} {site.brand}. All rights reserved.
        </p>
      </div>
    </footer>
  );
}

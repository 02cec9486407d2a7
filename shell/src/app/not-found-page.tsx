import { Link, Navigate, useLocation } from 'react-router';
import { matchRoute, paths } from '@gift/content';
import styles from './remote-unavailable.module.css';

/** Where a visitor who followed a dead link most likely wanted to go. */
const mainPages = [
  { label: 'Sell on Giftwell', to: paths.vendor },
  { label: 'Gifting for business', to: paths.business },
  { label: 'Delete your account', to: paths.deleteAccount },
];

export function NotFoundPage() {
  const { pathname, search, hash } = useLocation();
  // Another spelling of a page's address goes to the page, as the server sends it there on a full load.
  const match = matchRoute(pathname);
  if (match) return <Navigate replace to={match.canonicalPath + search + hash} />;
  return (
    <div className={styles.panel}>
      {/* A file, not markup in the script: only this page fetches it. */}
      <img className={styles.art} src="/not-found.svg" alt="" width="72" height="72" />
      <h1>Page not found</h1>
      <p>The page you were looking for doesn’t exist or has moved.</p>
      <p>
        <Link to={paths.home}>Go to the home page</Link>
      </p>
      <nav aria-label="Main pages">
        <ul className={styles.elsewhere}>
          {mainPages.map(({ label, to }) => (
            <li key={to}>
              <Link to={to}>{label}</Link>
            </li>
          ))}
        </ul>
      </nav>
    </div>
  );
}

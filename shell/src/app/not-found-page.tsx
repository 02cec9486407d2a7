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
      <svg className={styles.art} width="72" height="72" viewBox="0 0 72 72" aria-hidden="true" focusable="false">
        <rect x="12" y="30" width="48" height="32" rx="4" fill="currentColor" opacity="0.15" />
        <rect x="8" y="22" width="56" height="12" rx="3" fill="currentColor" opacity="0.3" />
        <path d="M36 22v40" stroke="currentColor" strokeWidth="5" />
        <path
          d="M36 22c-4-9-15-11-15-4 0 4 7 4 15 4zm0 0c4-9 15-11 15-4 0 4-7 4-15 4z"
          fill="none"
          stroke="currentColor"
          strokeWidth="3.5"
          strokeLinejoin="round"
        />
        <text x="36" y="53" textAnchor="middle" fontSize="13" fontWeight="800" fill="currentColor">
          ?
        </text>
      </svg>
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

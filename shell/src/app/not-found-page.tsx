import { Link, Navigate, useLocation } from 'react-router';
import { matchRoute, paths } from '@gift/content';
import styles from './remote-unavailable.module.css';

export function NotFoundPage() {
  const { pathname, search, hash } = useLocation();
  // Another spelling of a page's address goes to the page, as the server sends it there on a full load.
  const match = matchRoute(pathname);
  if (match) return <Navigate replace to={match.canonicalPath + search + hash} />;
  return (
    <div className={styles.panel}>
      <h1>Page not found</h1>
      <p>The page you were looking for doesn’t exist or has moved.</p>
      <p>
        <Link to={paths.home}>Go to the home page</Link>
      </p>
    </div>
  );
}

import { Link } from 'react-router';
import { paths } from '@gift/content';
import styles from './remote-unavailable.module.css';

export function NotFoundPage() {
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

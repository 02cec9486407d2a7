import { Button, Spinner } from '@gift/ui';
import styles from './remote-unavailable.module.css';

/**
 * Shown inside the normal header and footer when a page's remote cannot be loaded. `data-remote-unavailable` tells
 * tools (the release checks) that a page fell back to it, whatever its words.
 */
export function RemoteUnavailable({ onRetry, retrying = false }: { onRetry: () => void; retrying?: boolean }) {
  return (
    <div className={styles.panel} role="alert" data-remote-unavailable="">
      <h1>This part of the site is unavailable</h1>
      <p>We couldn’t load this page just now. The rest of the site still works. Please try again in a moment.</p>
      <Button type="button" disabled={retrying} onClick={onRetry}>
        {retrying ? 'Trying again…' : 'Try again'}
      </Button>
    </div>
  );
}

export function PageLoading() {
  return (
    <div className={styles.loading} role="status">
      <Spinner size="large" />
      <span className="visually-hidden">Loading the page…</span>
    </div>
  );
}

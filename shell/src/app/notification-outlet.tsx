import { useEffect } from 'react';
import { useNotifications, type Notification } from '@gift/store';
import { CloseIcon } from '@gift/ui';
import styles from './notification-outlet.module.css';

const autoDismissMs = 8000;

function Toast({ notification }: { notification: Notification }) {
  const dismiss = useNotifications((state) => state.dismiss);
  useEffect(() => {
    const timer = setTimeout(() => dismiss(notification.id), autoDismissMs);
    return () => clearTimeout(timer);
  }, [dismiss, notification.id]);
  return (
    <li className={styles.toast} data-tone={notification.tone}>
      <p className={styles.message}>{notification.message}</p>
      <button type="button" className={styles.dismiss} aria-label="Dismiss" onClick={() => dismiss(notification.id)}>
        <CloseIcon width={18} height={18} />
      </button>
    </li>
  );
}

/** The element below all routes: toasts any app raises through the shared store, read out politely. */
export function NotificationOutlet() {
  const notifications = useNotifications((state) => state.notifications);
  return (
    <section aria-label="Notifications" aria-live="polite" aria-relevant="additions text">
      <ul className={styles.outlet}>
        {notifications.map((notification) => (
          <Toast key={notification.id} notification={notification} />
        ))}
      </ul>
    </section>
  );
}

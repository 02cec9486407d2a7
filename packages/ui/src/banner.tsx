import { useId, type ReactNode } from 'react';
import styles from './banner.module.css';

/** A closing call to action across the page width. */
export function Banner({ title, text, children }: { title: string; text?: string; children?: ReactNode }) {
  const headingId = useId();
  return (
    <section className={styles.banner} aria-labelledby={headingId}>
      <div className={styles.inner}>
        <h2 id={headingId} className={styles.title}>
          {title}
        </h2>
        {text && <p className={styles.text}>{text}</p>}
        {children}
      </div>
    </section>
  );
}

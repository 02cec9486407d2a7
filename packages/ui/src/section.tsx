import { useId, type ReactNode } from 'react';
import styles from './section.module.css';

interface SectionProps {
  id?: string;
  title: string;
  intro?: string;
  className?: string;
  children?: ReactNode;
}

/** A titled page section; its heading labels it for screen readers. */
export function Section({ id, title, intro, className, children }: SectionProps) {
  const headingId = useId();
  return (
    <section id={id} aria-labelledby={headingId} className={[styles.section, className].filter(Boolean).join(' ')}>
      <div className={styles.inner}>
        <h2 id={headingId} className={styles.title}>
          {title}
        </h2>
        {intro && <p className={styles.intro}>{intro}</p>}
        {children}
      </div>
    </section>
  );
}

import { useRef } from 'react';
import { scrollLockDemo } from '../content/scroll-lock.content.ts';
import { useScrollLock } from '../hooks/use-scroll-lock.ts';
import styles from './scroll-lock-page.module.css';

export function ScrollLockPage() {
  const middle = useRef<HTMLElement>(null);
  const card = useRef<HTMLDivElement>(null);
  const locked = useScrollLock(middle, card);
  const { before, locked: lockedSection, after } = scrollLockDemo.sections;

  return (
    <>
      <section className={styles.section} aria-labelledby="lock-before">
        <div>
          <h1 id="lock-before">{before.title}</h1>
          <p>{before.body}</p>
        </div>
      </section>
      <section ref={middle} className={styles.section} aria-labelledby="lock-middle" data-testid="lock-section">
        <div>
          <h2 id="lock-middle">{lockedSection.title}</h2>
          <p>{lockedSection.body}</p>
          {/* A scrollable region must be reachable by keyboard to be scrolled by it. */}
          {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
          <div ref={card} className={styles.card} tabIndex={0} role="region" aria-label={lockedSection.cardLabel}>
            {lockedSection.paragraphs.map((paragraph) => (
              <p key={paragraph}>{paragraph}</p>
            ))}
          </div>
        </div>
      </section>
      <section className={styles.section} aria-labelledby="lock-after">
        <div>
          <h2 id="lock-after">{after.title}</h2>
          <p>{after.body}</p>
        </div>
      </section>
      <p className={styles.status} data-locked={locked} role="status">
        {locked ? scrollLockDemo.status.locked : scrollLockDemo.status.free}
      </p>
    </>
  );
}

export default ScrollLockPage;

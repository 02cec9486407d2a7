import type { ReactNode } from 'react';
import styles from './audience-hero.module.css';

interface AudienceHeroProps {
  id?: string;
  titleId: string;
  eyebrow?: string;
  title: string;
  intro: string;
  /** The calls to action under the intro. */
  children?: ReactNode;
  /** The picture of the product this audience gets (a `ProductArt`). */
  art: ReactNode;
}

/**
 * An audience page's first screen: who it is for and what they get, the copy on the left and the product drawn on the
 * right (under the copy on a phone), one alignment for the whole section.
 */
export function AudienceHero({ id, titleId, eyebrow, title, intro, children, art }: AudienceHeroProps) {
  return (
    <section id={id} className={styles.hero} aria-labelledby={titleId}>
      <div className={styles.inner}>
        <div className={styles.copy}>
          {eyebrow && <p className={styles.eyebrow}>{eyebrow}</p>}
          <h1 id={titleId}>{title}</h1>
          <p className={styles.intro}>{intro}</p>
          {children}
        </div>
        <div className={styles.art}>{art}</div>
      </div>
    </section>
  );
}

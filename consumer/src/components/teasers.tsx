import { Link } from '@gift/router';
import { landing } from '../content/landing.content.ts';
import styles from './teasers.module.css';

/** The vendor and corporate teasers, each leading to its audience's page. */
export function Teasers() {
  return (
    <div className={styles.grid}>
      {landing.teasers.map((teaser) => (
        <section
          key={teaser.id}
          className={styles.card}
          data-variant={teaser.id}
          aria-labelledby={`teaser-${teaser.id}`}
        >
          <p className={styles.eyebrow}>{teaser.eyebrow}</p>
          <h2 id={`teaser-${teaser.id}`}>{teaser.title}</h2>
          <p>{teaser.body}</p>
          <Link className={styles.cta} to={teaser.to}>
            {teaser.cta}
          </Link>
        </section>
      ))}
    </div>
  );
}

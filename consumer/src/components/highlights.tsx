import { landing } from '../content/landing.content.ts';
import styles from './highlights.module.css';
import { Reveal } from './page-motion.tsx';

/** The animated section: each text and its picture rise and fade in as they come into view. */
export function Highlights() {
  return (
    <div className={styles.list}>
      {landing.highlights.map((highlight) => (
        <section key={highlight.id} className={styles.row} aria-labelledby={`highlight-${highlight.id}`}>
          <Reveal className={styles.media}>
            <img
              src={highlight.image.src}
              alt=""
              width={highlight.image.width}
              height={highlight.image.height}
              loading="lazy"
            />
          </Reveal>
          <Reveal className={styles.text}>
            <h2 id={`highlight-${highlight.id}`}>{highlight.title}</h2>
            <p>{highlight.body}</p>
          </Reveal>
        </section>
      ))}
    </div>
  );
}

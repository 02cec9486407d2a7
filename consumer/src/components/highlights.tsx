import { landing } from '../content/landing.content.ts';
import styles from './highlights.module.css';
import { Reveal } from './page-motion.tsx';

/** The animated section: each text and its picture slide in as they come into view. */
export function Highlights() {
  return (
    <div className={styles.list}>
      {landing.highlights.map((highlight, index) => {
        const from = index % 2 === 0 ? -40 : 40;
        return (
          <section key={highlight.id} className={styles.row} aria-labelledby={`highlight-${highlight.id}`}>
            <Reveal className={styles.media} from={from}>
              <img
                src={highlight.image.src}
                alt=""
                width={highlight.image.width}
                height={highlight.image.height}
                loading="lazy"
              />
            </Reveal>
            <Reveal className={styles.text} from={-from}>
              <h2 id={`highlight-${highlight.id}`}>{highlight.title}</h2>
              <p>{highlight.body}</p>
            </Reveal>
          </section>
        );
      })}
    </div>
  );
}

import { m } from 'framer-motion';
import { landing } from '../content/landing.content.ts';
import styles from './highlights.module.css';

/** The animated section: each text and its picture slide in as they come into view. */
export function Highlights() {
  return (
    <div className={styles.list}>
      {landing.highlights.map((highlight, index) => {
        const from = index % 2 === 0 ? -40 : 40;
        return (
          <section key={highlight.id} className={styles.row} aria-labelledby={`highlight-${highlight.id}`}>
            <m.div
              className={styles.media}
              data-reveal
              initial={{ opacity: 0, x: from }}
              whileInView={{ opacity: 1, x: 0 }}
              viewport={{ once: true, amount: 0.3 }}
            >
              <img
                src={highlight.image.src}
                alt=""
                width={highlight.image.width}
                height={highlight.image.height}
                loading="lazy"
              />
            </m.div>
            <m.div
              className={styles.text}
              data-reveal
              initial={{ opacity: 0, x: -from }}
              whileInView={{ opacity: 1, x: 0 }}
              viewport={{ once: true, amount: 0.3 }}
            >
              <h2 id={`highlight-${highlight.id}`}>{highlight.title}</h2>
              <p>{highlight.body}</p>
            </m.div>
          </section>
        );
      })}
    </div>
  );
}

import { landing } from '../content/landing.content.ts';
import styles from './connect.module.css';

/** The first section under the hero: its heading and words on one side, the picture on the other, one alignment. */
export function Connect() {
  const { title, body, image } = landing.connect;
  return (
    <section className={styles.section} aria-labelledby="connect-title">
      <div className={styles.row}>
        <div className={styles.text}>
          <h2 id="connect-title">{title}</h2>
          <p>{body}</p>
        </div>
        <img src={image.src} alt="" width={image.width} height={image.height} loading="lazy" />
      </div>
    </section>
  );
}

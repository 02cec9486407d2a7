import { Section } from '@gift/ui';
import { landing } from '../content/landing.content.ts';
import styles from './connect.module.css';

export function Connect() {
  const { title, body, image } = landing.connect;
  return (
    <Section title={title}>
      <div className={styles.row}>
        <p>{body}</p>
        <img src={image.src} alt="" width={image.width} height={image.height} loading="lazy" />
      </div>
    </Section>
  );
}

import styles from './spinner.module.css';

/** Something is on its way. Decorative: the text beside it (or a status region) says what. */
export function Spinner({ size }: { size: 'large' | 'small' }) {
  return <span className={`${styles.spinner} ${styles[size]}`} aria-hidden="true" />;
}

import type { FaqEntry } from '@gift/content';
import { MinusIcon, PlusIcon } from './icons.tsx';
import styles from './faq.module.css';

/**
 * FAQ accordion of native disclosures: each question opens and closes its answer from first paint and without
 * JavaScript, and React never owns the open state, so one opened before hydration stays open. The question is a
 * heading inside the summary; plus when closed, minus when open (CSS on `[open]`).
 */
export function Faq({ items }: { items: FaqEntry[] }) {
  return (
    <ul className={styles.list}>
      {items.map((item) => (
        <li key={item.question} className={styles.item}>
          {/* The visitor may have opened it before hydration: the browser's open state is the truth. */}
          <details className={styles.disclosure} suppressHydrationWarning>
            <summary className={styles.toggle}>
              <h3 className={styles.question}>{item.question}</h3>
              <PlusIcon className={`${styles.symbol} ${styles.plus}`} />
              <MinusIcon className={`${styles.symbol} ${styles.minus}`} />
            </summary>
            <p className={styles.answer}>{item.answer}</p>
          </details>
        </li>
      ))}
    </ul>
  );
}

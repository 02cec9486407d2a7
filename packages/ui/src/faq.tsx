import { useId, useState } from 'react';
import type { FaqEntry } from '@gift/content';
import { MinusIcon, PlusIcon } from './icons.tsx';
import styles from './faq.module.css';

/** FAQ accordion: each question toggles its answer; plus when closed, minus when open. */
export function Faq({ items }: { items: FaqEntry[] }) {
  const [openIndexes, setOpenIndexes] = useState<ReadonlySet<number>>(new Set());
  const baseId = useId();
  const toggle = (index: number) =>
    setOpenIndexes((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });

  return (
    <ul className={styles.list}>
      {items.map((item, index) => {
        const open = openIndexes.has(index);
        const answerId = `${baseId}-answer-${index}`;
        return (
          <li key={item.question} className={styles.item}>
            <h3 className={styles.question}>
              <button
                type="button"
                className={styles.toggle}
                aria-expanded={open}
                aria-controls={answerId}
                onClick={() => toggle(index)}
              >
                {item.question}
                {open ? <MinusIcon className={styles.symbol} /> : <PlusIcon className={styles.symbol} />}
              </button>
            </h3>
            <p id={answerId} className={styles.answer} hidden={!open}>
              {item.answer}
            </p>
          </li>
        );
      })}
    </ul>
  );
}

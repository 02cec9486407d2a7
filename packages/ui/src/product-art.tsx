import type { CSSProperties, ReactNode } from 'react';
import styles from './product-art.module.css';

/**
 * A picture of the product drawn in HTML and CSS from the page's own content (Stripe's habit: real-looking UI, not a
 * screenshot), in the theme's colours. One image to assistive technology: its label says what it shows, the text
 * inside is part of the picture.
 */
export function ProductArt({
  label,
  children,
  plain,
  className,
}: {
  label: string;
  children: ReactNode;
  /** Cards alone, without the picture's backdrop (a card laid over other art). */
  plain?: boolean;
  className?: string;
}) {
  return (
    <div className={[styles.art, className].filter(Boolean).join(' ')} data-plain={plain} role="img" aria-label={label}>
      {children}
    </div>
  );
}

type Tone = 'brand' | 'teal' | 'gold';

/** A window of the app inside the picture; `offset` lays a second card over the first. */
export function ArtCard({
  title,
  meta,
  children,
  offset,
}: {
  title?: string;
  meta?: string;
  children: ReactNode;
  offset?: 'start' | 'end';
}) {
  return (
    <div className={styles.card} data-offset={offset}>
      {(title || meta) && (
        <div className={styles.cardHead}>
          {title && <span className={styles.cardTitle}>{title}</span>}
          {meta && <span className={styles.meta}>{meta}</span>}
        </div>
      )}
      {children}
    </div>
  );
}

/** A round badge of initials or a symbol. */
export function ArtBadge({ children, tone = 'brand' }: { children: ReactNode; tone?: Tone }) {
  return (
    <span className={styles.badge} data-tone={tone}>
      {children}
    </span>
  );
}

/** A line of a list: a badge, a name with its detail, and a figure at the end. */
export function ArtRow({
  badge,
  tone,
  name,
  detail,
  figure,
}: {
  badge: ReactNode;
  tone?: Tone;
  name: string;
  detail?: string;
  figure?: string;
}) {
  return (
    <div className={styles.row}>
      <ArtBadge tone={tone}>{badge}</ArtBadge>
      <span className={styles.rowText}>
        <span className={styles.name}>{name}</span>
        {detail && <span className={styles.meta}>{detail}</span>}
      </span>
      {figure && <span className={styles.figure}>{figure}</span>}
    </div>
  );
}

/** Budgets: one bar each, filled to what was spent. */
export function ArtBars({ bars }: { bars: { label: string; spent: number; budget: number; figure: string }[] }) {
  return (
    <div className={styles.bars}>
      {bars.map((bar) => (
        <div key={bar.label} className={styles.bar}>
          <span className={styles.barLabel}>
            <span className={styles.name}>{bar.label}</span>
            <span className={styles.meta}>{bar.figure}</span>
          </span>
          <span className={styles.track}>
            <span className={styles.fill} style={{ '--share': bar.spent / bar.budget } as CSSProperties} />
          </span>
        </div>
      ))}
    </div>
  );
}

/** A column chart: a column a month, the last one the current month. */
export function ArtColumns({ columns }: { columns: { label: string; value: number }[] }) {
  const highest = Math.max(...columns.map((column) => column.value));
  return (
    <div className={styles.columns}>
      {columns.map((column) => (
        <span key={column.label} className={styles.column}>
          <span className={styles.columnBar} style={{ '--share': column.value / highest } as CSSProperties} />
          <span className={styles.meta}>{column.label}</span>
        </span>
      ))}
    </div>
  );
}

/** A small pill: a status or a call to action inside the picture. */
export function ArtPill({ children, tone = 'brand' }: { children: ReactNode; tone?: Tone }) {
  return (
    <span className={styles.pill} data-tone={tone}>
      {children}
    </span>
  );
}

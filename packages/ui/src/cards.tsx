import { Link } from '@gift/router';
import { Icon, type IconName } from './icon.tsx';
import styles from './cards.module.css';

/** Spec section 3: a marketing feature card. */
export interface FeatureCard {
  id: string;
  title: string;
  description: string;
  icon: IconName;
}

/** Spec section 3: a perk card; `image` is optional for plain link cards. */
export interface LinkCard {
  id: string;
  title: string;
  description: string;
  link: { to: string; label: string };
  image?: { src: string; width: number; height: number };
}

/**
 * Feature cards in the shape their content asks for: `cards` (an icon, a title, a line: reasons, features), `tiles`
 * (a band of colour with a large emblem over the words: kinds of shop, shown as pictures), `list` (icon beside the
 * words, no frame, two columns: a product's capabilities read as one list).
 */
export function CardGrid({ items, look = 'cards' }: { items: FeatureCard[]; look?: 'cards' | 'tiles' | 'list' }) {
  return (
    <ul className={styles.grid} data-look={look}>
      {items.map((item) => (
        <li key={item.id} id={item.id}>
          <article className={styles.card}>
            <span className={styles.icon}>
              <Icon name={item.icon} />
            </span>
            <h3>{item.title}</h3>
            <p>{item.description}</p>
          </article>
        </li>
      ))}
    </ul>
  );
}

export function LinkCardGrid({ items }: { items: LinkCard[] }) {
  return (
    <ul className={styles.grid}>
      {items.map((item) => (
        <li key={item.id}>
          <article className={styles.card}>
            {item.image && (
              <img
                className={styles.image}
                src={item.image.src}
                alt=""
                width={item.image.width}
                height={item.image.height}
                loading="lazy"
              />
            )}
            <h3>{item.title}</h3>
            <p>{item.description}</p>
            <Link className={styles.link} to={item.link.to}>
              {item.link.label}
              <span className="visually-hidden">: {item.title}</span>
              <span aria-hidden="true">→</span>
            </Link>
          </article>
        </li>
      ))}
    </ul>
  );
}

import { ArtCard, ArtPill, ArtRow, Icon, ProductArt } from '@gift/ui';
import { vendor } from '../content/vendor.content.ts';
import styles from './shop-art.module.css';

/** What a vendor gets: their shop in the marketplace, an order coming in, the week's payout. */
export function ShopArt() {
  const { shop } = vendor;
  return (
    <ProductArt label={shop.alt}>
      <ArtCard title={shop.name} meta={shop.kind}>
        <ul className={styles.products}>
          {shop.products.map((product) => (
            <li key={product.id} className={styles.product}>
              <span className={styles.photo} data-tone={product.tone}>
                <ProductPhoto kind={product.id} />
              </span>
              <span className={styles.productName}>{product.name}</span>
              <span className={styles.price}>{product.price}</span>
            </li>
          ))}
        </ul>
      </ArtCard>
      <ArtCard title={shop.order.title} meta={shop.order.when} offset="end">
        <ArtRow badge={<Icon name="flower" size={18} />} name={shop.order.item} detail={shop.order.detail} />
        <ArtPill>{shop.order.action}</ArtPill>
      </ArtCard>
      <ArtCard>
        <ArtRow
          badge="£"
          tone="teal"
          name={shop.payout.label}
          detail={shop.payout.detail}
          figure={shop.payout.amount}
        />
      </ArtCard>
    </ProductArt>
  );
}

/** A product's photo, drawn: the bouquet, the box of peonies, the posy, in the theme's colours. */
function ProductPhoto({ kind }: { kind: string }) {
  const flowers = (points: [number, number, number, string][]) =>
    points.map(([cx, cy, r, fill]) => <circle key={`${cx}-${cy}`} cx={cx} cy={cy} r={r} fill={fill} />);
  const brand = 'var(--color-brand)';
  const strong = 'var(--color-brand-strong)';
  const gold = 'var(--color-accent)';
  const leaf = 'var(--art-teal)';
  return (
    <svg viewBox="0 0 100 100" aria-hidden="true" focusable="false">
      {kind === 'peony' ? (
        <>
          <path d="M18 56h64l-6 34H24z" fill="var(--color-ink-muted)" />
          <path d="M18 56h64v6H18z" fill="var(--color-ink)" opacity=".35" />
          <path d="M30 56q-4-12 6-16M70 56q4-12-6-16" stroke={leaf} strokeWidth="5" fill="none" strokeLinecap="round" />
          {flowers([
            [38, 44, 13, brand],
            [60, 42, 14, strong],
            [50, 30, 11, brand],
          ])}
        </>
      ) : (
        <>
          <path d="M50 92 30 52h40z" fill={kind === 'posy' ? 'var(--color-surface)' : 'var(--art-gold-soft)'} />
          <path d="M50 92 30 52h40z" fill="none" stroke="var(--color-line)" strokeWidth="2" />
          <path d="M50 56 38 34M50 56l12-22M50 56V28" stroke={leaf} strokeWidth="3" strokeLinecap="round" />
          {kind === 'posy'
            ? flowers([
                [40, 38, 10, gold],
                [60, 38, 10, gold],
                [50, 28, 10, brand],
              ])
            : flowers([
                [36, 34, 12, brand],
                [64, 34, 12, gold],
                [50, 24, 12, strong],
                [50, 44, 9, gold],
              ])}
          <path d="M44 70h12l-6 8z" fill={brand} />
        </>
      )}
    </svg>
  );
}

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
              <span className={styles.photo} data-tone={product.tone} />
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

import { faqEntries, site } from '@gift/content';
import { goalPing } from '@gift/contracts/field-data';
import { AudienceHero, Banner, callToActionClass, CardGrid, ExternalLink, Faq, Section, StepList } from '@gift/ui';
import { ShopArt } from '../components/shop-art.tsx';
import { VendorHeader } from '../components/vendor-header.tsx';
import { vendor } from '../content/vendor.content.ts';
import styles from './vendor-page.module.css';

export function VendorPage() {
  const { hero, benefits, businessTypes, howItWorks, testimonials, banner } = vendor;
  return (
    <>
      <VendorHeader />
      <AudienceHero
        titleId="vendor-title"
        eyebrow={hero.eyebrow}
        title={hero.title}
        intro={hero.intro}
        art={<ShopArt />}
      >
        <ExternalLink className={callToActionClass.primary} href={site.portal.register} ping={goalPing('portal-click')}>
          {hero.cta}
        </ExternalLink>
      </AudienceHero>
      <Section title={benefits.title}>
        <CardGrid items={benefits.items} />
      </Section>
      <Section title={businessTypes.title}>
        <CardGrid items={businessTypes.items} look="tiles" />
      </Section>
      <Section id="workssection" title={howItWorks.title}>
        <StepList steps={howItWorks.steps} />
      </Section>
      <Section title={testimonials.title}>
        <ul className={styles.quotes}>
          {testimonials.items.map((item) => (
            <li key={item.id}>
              <figure className={styles.quote}>
                <blockquote>“{item.quote}”</blockquote>
                <figcaption>
                  <strong>{item.name}</strong>
                  {item.business}
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      </Section>
      <Section id="faqs" title={vendor.faqTitle}>
        <Faq items={faqEntries} />
      </Section>
      <Banner title={banner.title} text={banner.text}>
        <ExternalLink className={callToActionClass.inverse} href={site.portal.register} ping={goalPing('portal-click')}>
          {banner.cta}
        </ExternalLink>
      </Banner>
    </>
  );
}

export default VendorPage;

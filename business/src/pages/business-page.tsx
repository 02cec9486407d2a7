import { faqEntries, sections, site } from '@gift/content';
import { CardGrid, Faq, LinkCardGrid, Section, StoreButtons } from '@gift/ui';
import { CorporateBanner } from '../components/corporate-banner.tsx';
import { businessHome } from '../content/business-home.content.ts';
import { faqTitle } from '../content/shared.content.ts';
import styles from '../components/business.module.css';

export function BusinessHomePage() {
  const { hero, features, offers, celebration } = businessHome;
  return (
    <>
      <section id={sections.getStarted} className={styles.hero} aria-labelledby="business-title">
        <div className={styles.heroInner}>
          <h1 id="business-title">{hero.title}</h1>
          <p>{hero.intro}</p>
          <StoreButtons links={site.businessApp} centered />
        </div>
      </section>
      <Section id="features" title={features.title}>
        <CardGrid items={features.items} />
      </Section>
      <Section title={offers.title}>
        <LinkCardGrid items={offers.items} />
      </Section>
      <Section title={celebration.title}>
        <p className={styles.celebration}>{celebration.body}</p>
      </Section>
      <Section id="faqs" title={faqTitle}>
        <Faq items={faqEntries} />
      </Section>
      <CorporateBanner />
    </>
  );
}

export default BusinessHomePage;

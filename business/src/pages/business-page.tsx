import { sections, site } from '@gift/content';
import { CardGrid, LinkCardGrid, Section, StoreButtons } from '@gift/ui';
import { PageFoot } from '../components/page-foot.tsx';
import { businessHome } from '../content/business-home.content.ts';
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
      <PageFoot />
    </>
  );
}

export default BusinessHomePage;

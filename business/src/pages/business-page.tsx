import { sections, site } from '@gift/content';
import { AudienceHero, CardGrid, LinkCardGrid, Section, StoreButtons } from '@gift/ui';
import { BusinessArt } from '../components/business-art.tsx';
import { PageFoot } from '../components/page-foot.tsx';
import { overviewArt } from '../content/business-art.ts';
import { businessHome } from '../content/business-home.content.ts';
import styles from '../components/business.module.css';

export function BusinessHomePage() {
  const { hero, features, offers, celebration } = businessHome;
  return (
    <>
      <AudienceHero
        id={sections.getStarted}
        titleId="business-title"
        eyebrow={hero.eyebrow}
        title={hero.title}
        intro={hero.intro}
        art={<BusinessArt art={overviewArt} />}
      >
        <StoreButtons links={site.businessApp} />
      </AudienceHero>
      <Section id="features" title={features.title}>
        <CardGrid items={features.items} look="list" />
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

import { CardGrid, LinkCardGrid, Section, StepList } from '@gift/ui';
import type { BusinessPageContent } from '../content/business-page.ts';
import { PageFoot } from './page-foot.tsx';
import styles from './business.module.css';

/** The business sub-pages: one layout, one content object each. */
export function BusinessPage({ content }: { content: BusinessPageContent }) {
  return (
    <>
      <section className={styles.hero} aria-labelledby="business-page-title">
        <div className={styles.heroInner}>
          <h1 id="business-page-title">{content.title}</h1>
          <p>{content.intro}</p>
        </div>
      </section>
      <Section id="features" title={content.features.title}>
        <CardGrid items={content.features.items} />
      </Section>
      <Section id="workssection" title={content.howItWorks.title}>
        <StepList steps={content.howItWorks.steps} />
      </Section>
      <Section title={content.related.title}>
        <LinkCardGrid items={content.related.items} />
      </Section>
      <PageFoot />
    </>
  );
}

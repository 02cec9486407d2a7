import { AudienceHero, CardGrid, LinkCardGrid, Section, StepList } from '@gift/ui';
import type { BusinessPageContent } from '../content/business-page.ts';
import { PageFoot } from './page-foot.tsx';
import { BusinessArt } from './business-art.tsx';

/** The business sub-pages: one layout, one content object each. */
export function BusinessPage({ content }: { content: BusinessPageContent }) {
  return (
    <>
      <AudienceHero
        titleId="business-page-title"
        title={content.title}
        intro={content.intro}
        art={<BusinessArt art={content.art} />}
      />
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

import { faqEntries, sections, site } from '@gift/content';
import { Banner, Faq, Section, StoreButtons } from '@gift/ui';
import { landing } from '../content/landing.content.ts';
import { Connect } from './connect.tsx';
import { Features } from './features.tsx';
import { Highlights } from './highlights.tsx';
import { HowItWorks } from './how-it-works.tsx';
import { PageMotion } from './page-motion.tsx';
import { Teasers } from './teasers.tsx';

/**
 * The landing page after its hero: below the first viewport on every screen, so its code loads and hydrates after
 * the hero's (see laterPart in @gift/ui). The animations belong to it alone.
 */
export default function BelowTheFold() {
  return (
    <PageMotion>
      <Connect />
      <HowItWorks />
      <Features />
      <Teasers />
      <Highlights />
      <Section id={sections.faqs} title={landing.faqTitle}>
        <Faq items={faqEntries} />
      </Section>
      <Banner title={landing.closing.title} text={landing.closing.text}>
        <StoreButtons links={site.consumerApp} centered inverse />
      </Banner>
    </PageMotion>
  );
}

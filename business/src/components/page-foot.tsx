import { faqEntries } from '@gift/content';
import { Faq, Section } from '@gift/ui';
import { faqTitle } from '../content/shared.content.ts';
import { CorporateBanner } from './corporate-banner.tsx';

/** The foot of every business page: the questions businesses ask, then the corporate banner. */
export function PageFoot() {
  return (
    <>
      <Section id="faqs" title={faqTitle}>
        <Faq items={faqEntries} />
      </Section>
      <CorporateBanner />
    </>
  );
}

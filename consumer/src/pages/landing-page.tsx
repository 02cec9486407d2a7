import 'slick-carousel/slick/slick.css';
import { faqEntries, sections, site } from '@gift/content';
import { Banner, Faq, Section, StoreButtons } from '@gift/ui';
import { Connect } from '../components/connect.tsx';
import { Features } from '../components/features.tsx';
import { Hero } from '../components/hero.tsx';
import { Highlights } from '../components/highlights.tsx';
import { HowItWorks } from '../components/how-it-works.tsx';
import { PageMotion } from '../components/page-motion.tsx';
import { Teasers } from '../components/teasers.tsx';
import { landing } from '../content/landing.content.ts';

export function LandingPage() {
  return (
    <PageMotion>
      <Hero />
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

export default LandingPage;

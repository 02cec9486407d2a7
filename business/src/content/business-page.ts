import type { FeatureCard, LinkCard, Step } from '@gift/ui';

/** One business sub-page: adding a page is adding one of these. */
export interface BusinessPageContent {
  title: string;
  intro: string;
  features: { title: string; items: FeatureCard[] };
  howItWorks: { title: string; steps: Step[] };
  related: { title: string; items: LinkCard[] };
}

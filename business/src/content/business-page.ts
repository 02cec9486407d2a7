import type { FeatureCard, LinkCard, Step } from '@gift/ui';
import type { BusinessArt } from './business-art.ts';

/** One business sub-page: adding a page is adding one of these. */
export interface BusinessPageContent {
  title: string;
  intro: string;
  art: BusinessArt;
  features: { title: string; items: FeatureCard[] };
  howItWorks: { title: string; steps: Step[] };
  related: { title: string; items: LinkCard[] };
}

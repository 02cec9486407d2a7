import { paths } from '@gift/content';
import type { FeatureCard, Step } from '@gift/ui';
import slide1 from '../assets/slides/slide-1.svg';
import slide2 from '../assets/slides/slide-2.svg';
import slide3 from '../assets/slides/slide-3.svg';
import slide4 from '../assets/slides/slide-4.svg';
import slide5 from '../assets/slides/slide-5.svg';
import slide6 from '../assets/slides/slide-6.svg';
import slide7 from '../assets/slides/slide-7.svg';
import celebrateTogether from '../assets/illustrations/celebrate-together.svg';
import specialOccasions from '../assets/illustrations/special-occasions.svg';
import trustedGroups from '../assets/illustrations/trusted-groups.svg';

export interface TitleSlide {
  id: string;
  title: string;
}

export interface ImageSlide {
  id: string;
  src: string;
  width: number;
  height: number;
}

/** A feature of the app, shown with the screen of the app where it happens. */
export type Feature = FeatureCard & { screen: string };

export interface Teaser {
  id: string;
  eyebrow: string;
  title: string;
  body: string;
  cta: string;
  to: string;
}

export const landing = {
  hero: {
    title: 'The easiest way to',
    intro:
      'Pick a gift, make it personal and send it in minutes, to one person or a whole group. Never miss the moments that matter.',
    titleSlides: [
      { id: 'explore', title: 'Explore Gift Ideas' },
      { id: 'personalize', title: 'Personalize Relations' },
      { id: 'groups', title: 'Create Custom Groups' },
      { id: 'send', title: 'Send a Thoughtful Gift' },
      { id: 'occasions', title: 'Organize Special Occasions' },
    ] satisfies TitleSlide[],
    /** A card over the screens: a gift on its way, what the app is for. */
    onItsWay: {
      alt: 'A gift on its way: a hand-poured candle for Maya, out for delivery and arriving today between 2 and 4 pm.',
      title: 'Gift on its way',
      when: 'Today',
      item: 'Hand-poured candle',
      detail: 'For Maya · arriving 2–4 pm',
      status: 'Out for delivery',
    },
  },
  imageSlides: [slide1, slide2, slide3, slide4, slide5, slide6, slide7].map((src, index): ImageSlide => ({
    id: `slide-${index + 1}`,
    src,
    width: 300,
    height: 560,
  })),
  imageAlt: 'slider',
  connect: {
    title: 'Connect and Celebrate Together',
    body: 'Birthdays, weddings, promotions and little wins: bring friends, family and colleagues together around the moments worth celebrating, and choose a gift everyone is proud to give.',
    image: { src: celebrateTogether, width: 560, height: 420 },
  },
  howItWorks: {
    title: 'How Gifting Is Made Easy',
    intro: 'Three steps from “what should I get them?” to a gift on its way.',
    steps: [
      {
        id: 'category',
        title: 'Select a Category',
        body: 'Browse flowers, cakes, personalised keepsakes, experiences and more, sorted by occasion and budget.',
      },
      {
        id: 'relation',
        title: 'Choose Your Relation',
        body: 'Pick who it is for. We remember their occasions and what they love, so every suggestion fits.',
      },
      {
        id: 'send',
        title: 'Send with Love',
        body: 'Add a personal message, choose the delivery date and send. We keep you posted until it arrives.',
      },
    ] satisfies Step[],
  },
  features: {
    title: 'Features',
    intro: 'Everything you need to give better gifts, in one app.',
    items: [
      {
        id: 'gift-ideas',
        title: 'Gift Ideas',
        description: 'Fresh ideas for every person and occasion, from trusted local shops, bakeries and florists.',
        icon: 'lightbulb',
        screen: slide2,
      },
      {
        id: 'manage-relations',
        title: 'Manage Relations',
        description: 'Keep the people you care about in one place, with their birthdays, tastes and past gifts.',
        icon: 'heart',
        screen: slide7,
      },
      {
        id: 'create-groups',
        title: 'Create Groups',
        description: 'Gather family, friends or colleagues into groups to celebrate together and share the cost.',
        icon: 'users',
        screen: slide4,
      },
      {
        id: 'plan-occasions',
        title: 'Plan Occasions',
        description: 'Pick a date, a theme and the participants. Reminders arrive in time to choose calmly.',
        icon: 'calendar',
        screen: slide1,
      },
      {
        id: 'send-gifts',
        title: 'Send Gifts',
        description: 'Pay securely, add a personal note and track every gift until it is delivered.',
        icon: 'send',
        screen: slide6,
      },
    ] satisfies Feature[],
  },
  teasers: [
    {
      id: 'vendor',
      eyebrow: 'For vendors',
      title: 'Sell your gifts to people who are looking for them',
      body: 'Gift shops, bakeries and florists reach new customers through our marketplace.',
      cta: 'Become a vendor',
      to: paths.vendor,
    },
    {
      id: 'corporate',
      eyebrow: 'For businesses',
      title: 'Corporate gifting your team will remember',
      body: 'Budgets, approvals and spending reports for gifts to employees, partners and clients.',
      cta: 'Explore corporate gifting',
      to: paths.business,
    },
  ] satisfies Teaser[],
  highlights: [
    {
      id: 'trusted-groups',
      title: 'Connect with Trusted Groups',
      body: 'Invite the people you trust, decide together and send one gift from everyone.',
      image: { src: trustedGroups, width: 560, height: 420 },
    },
    {
      id: 'special-occasions',
      title: 'Plan Special Occasions',
      body: 'Birthdays, anniversaries and surprises, planned ahead with reminders that arrive on time.',
      image: { src: specialOccasions, width: 560, height: 420 },
    },
  ],
  faqTitle: 'Frequently Asked Questions',
  closing: {
    title: 'Start gifting today',
    text: 'Download the app and send your first thoughtful gift in minutes.',
  },
};

import type { FeatureCard, Step } from '@gift/ui';

export interface Testimonial {
  id: string;
  quote: string;
  name: string;
  business: string;
}

export const vendor = {
  hero: {
    eyebrow: 'For gift shops, bakeries and florists',
    title: 'Sell your gifts to people who are looking for them',
    intro:
      'Join the marketplace where people choose gifts for the moments that matter. List your products, receive orders and grow your business.',
    cta: 'Become a vendor',
  },
  /** The hero's picture: the vendor's shop inside the marketplace, an order coming in, a payout. */
  shop: {
    alt: 'A florist’s shop in the marketplace: three bouquets with their prices, a new birthday order for Saturday and this week’s payout of £1,284.50.',
    name: 'Petal & Stem',
    kind: 'Florist · Leeds · ★ 4.9',
    products: [
      { id: 'spring', name: 'Spring bouquet', price: '£38', tone: 'brand' },
      { id: 'peony', name: 'Peony box', price: '£52', tone: 'gold' },
      { id: 'posy', name: 'Thank-you posy', price: '£24', tone: 'teal' },
    ],
    order: {
      title: 'New order',
      when: 'Just now',
      item: 'Spring bouquet',
      detail: 'Birthday · deliver Sat 14 Dec, 10–12',
      action: 'Accept',
    },
    payout: { label: 'Payout sent', detail: 'Every Friday', amount: '£1,284.50' },
  },
  benefits: {
    title: 'Why partner with us',
    items: [
      {
        id: 'new-customers',
        title: 'Reach new customers',
        description: 'Show your gifts to people planning birthdays, anniversaries and corporate celebrations nearby.',
        icon: 'users',
      },
      {
        id: 'steady-orders',
        title: 'Steady, planned orders',
        description: 'Occasions are planned ahead, so orders arrive with a date and time to prepare them well.',
        icon: 'calendar',
      },
      {
        id: 'grow-sales',
        title: 'Grow with clear reports',
        description: 'See what sells, when and to whom, and get paid on a reliable schedule.',
        icon: 'trending',
      },
    ] satisfies FeatureCard[],
  },
  businessTypes: {
    title: 'Made for businesses like yours',
    items: [
      {
        id: 'gift-shops',
        title: 'Gift Shops',
        description: 'Personalised keepsakes, hampers and curated boxes for every occasion.',
        icon: 'store',
      },
      {
        id: 'bakeries',
        title: 'Bakeries',
        description: 'Birthday cakes, cupcakes and sweet treats, delivered fresh on the day.',
        icon: 'cake',
      },
      {
        id: 'florists',
        title: 'Florists',
        description: 'Bouquets and arrangements that say what words cannot.',
        icon: 'flower',
      },
    ] satisfies FeatureCard[],
  },
  howItWorks: {
    title: 'How it works',
    steps: [
      {
        id: 'sign-up',
        title: 'Sign up',
        body: 'Create your vendor account on the business portal and tell us about your shop.',
      },
      {
        id: 'list',
        title: 'List your products',
        body: 'Add your gifts with photos, prices and delivery areas. We help you make them shine.',
      },
      {
        id: 'sell',
        title: 'Receive orders and deliver',
        body: 'Accept orders, prepare them for the chosen date and get paid for every delivery.',
      },
    ] satisfies Step[],
  },
  testimonials: {
    title: 'What our partners say',
    items: [
      {
        id: 'rosa',
        quote:
          'Most of our weekend orders now come through the app. Customers order days ahead, so we never waste flowers.',
        name: 'Rosa Martins',
        business: 'Petal & Stem, florist',
      },
      {
        id: 'daniel',
        quote: 'Corporate teams found us through the marketplace. Birthday cakes for whole offices, every month.',
        name: 'Daniel Okafor',
        business: 'Crumb Street Bakery',
      },
    ] satisfies Testimonial[],
  },
  faqTitle: 'Frequently Asked Questions',
  banner: {
    title: 'Ready to grow your gift business?',
    text: 'Sign up in minutes and start receiving orders from people who love to give.',
    cta: 'Sign up as a vendor',
  },
  header: { login: 'Login', signup: 'Signup' },
};

import { site } from '@gift/content';
import type { LegalDocumentContent } from './legal-document.ts';

export const terms = {
  title: 'Terms & Conditions',
  lastUpdated: 'April 8, 2025',
  intro: `These terms apply when you use the ${site.brand} apps and website. By creating an account or placing an order you agree to them, so please read them carefully.`,
  sections: [
    {
      id: 'eligibility',
      heading: 'Eligibility',
      paragraphs: ['You must be at least 18 years old to create an account and use the service.'],
    },
    {
      id: 'your-account',
      heading: 'Your account',
      items: [
        'Provide accurate and complete information, and keep it up to date.',
        'Keep your login details confidential. You are responsible for everything that happens under your account.',
        'Tell us straight away if you think someone else has used your account.',
      ],
    },
    {
      id: 'orders',
      heading: 'Orders',
      paragraphs: [
        'All orders are subject to availability and to acceptance by us and by the vendor. We may decline or cancel an order, for example when an item is out of stock, and will refund any amount already paid.',
      ],
    },
    {
      id: 'payments-and-pricing',
      heading: 'Payments and pricing',
      items: [
        'Payments must be made through the approved payment methods shown at checkout.',
        'Prices may change at any time; the price that applies is the one shown when you place your order.',
      ],
    },
    {
      id: 'cancellations-and-refunds',
      heading: 'Cancellations and refunds',
      paragraphs: [
        'You can cancel an order within the time frame shown for it in the app. Refunds are issued according to our refund policy, to the original payment method.',
      ],
    },
    {
      id: 'intellectual-property',
      heading: 'Intellectual property',
      paragraphs: [
        `The apps, the website and their content, including logos, designs and text, belong to ${site.brand} or its licensors. You may not copy, modify or distribute them without our written permission.`,
      ],
    },
    {
      id: 'prohibited-activities',
      heading: 'Prohibited activities',
      items: [
        'Using the service for anything unlawful, fraudulent or harmful.',
        'Impersonating another person or giving false information.',
        'Interfering with the security or operation of the service, or trying to access it by automated means.',
        'Sending offensive, abusive or infringing content through gift messages.',
      ],
    },
    {
      id: 'limitation-of-liability',
      heading: 'Limitation of liability',
      paragraphs: [
        `To the extent the law allows, ${site.brand} is not liable for indirect or consequential losses, or for delays and failures caused by vendors, delivery partners or events outside our control. Nothing in these terms limits rights you have by law as a consumer.`,
      ],
    },
  ],
  contact: {
    heading: 'Contact us',
    text: 'Questions about these terms? Write to us at',
  },
} satisfies LegalDocumentContent;

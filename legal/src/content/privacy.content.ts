import { site } from '@gift/content';
import type { LegalDocumentContent } from './legal-document.ts';

export const privacy = {
  title: 'Privacy Policy',
  lastUpdated: 'April 8, 2025',
  intro: `${site.brand} helps you pick, personalise and send gifts. This policy explains what personal data we collect when you use our apps and website, why we use it, who we share it with and the choices you have.`,
  sections: [
    {
      id: 'data-we-collect',
      heading: 'Information we collect',
      paragraphs: ['We collect only what we need to run the service:'],
      items: [
        'Your name, email address and contact number.',
        'Delivery addresses for the gifts you send or receive.',
        'Gift preferences and occasion details, such as dates, themes and the people or groups involved.',
        'Device and log data, such as your device type, app version, IP address and how you use the app.',
        'Payment details, which are collected and processed by our third-party payment providers; we do not store your full card number.',
      ],
    },
    {
      id: 'how-we-use',
      heading: 'How we use your information',
      items: [
        'To process your orders and deliver your gifts.',
        'To personalise gift ideas, reminders and recommendations.',
        'To improve the platform and to answer your support requests.',
        'To see how the pages of this website work for their visitors: how fast they are, the errors they meet, and how many visits lead to what a page is for (an app store button, the vendor portal, a deletion request received). We count these per version of a page, with a cookie for that visit which lasts an hour, and nothing that identifies you, and count nothing when your browser sends Do Not Track or Global Privacy Control.',
        'To send you promotional messages, only if you have opted in. You can opt out at any time.',
      ],
    },
    {
      id: 'sharing',
      heading: 'How we share your information',
      paragraphs: [
        'We share your information only with the payment and delivery partners who need it to complete your order, and only for that purpose.',
        'We never sell your personal data.',
      ],
    },
    {
      id: 'your-rights',
      heading: 'Your rights',
      paragraphs: ['You are in control of your data. You can:'],
      items: [
        'Access your information or update it in the app at any time.',
        'Ask us to delete your account and its personal data, through the account deletion page or by email.',
        'Opt out of marketing messages from the app settings or the link in any message.',
      ],
    },
  ],
  contact: {
    heading: 'Contact us',
    text: 'Questions about this policy or your data? Write to us at',
  },
} satisfies LegalDocumentContent;

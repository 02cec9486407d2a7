/** Every page of the site, by what it is for. Links use these, never string literals. */
export const paths = {
  home: '/',
  vendor: '/vendor',
  business: '/business',
  manageTeam: '/manageteam',
  budgetTracking: '/budget-tracking',
  teamGifting: '/team-gifting',
  scrollLockDemo: '/test',
  shareLocation: '/share-location',
  privacy: '/privacy',
  terms: '/terms',
  deleteAccount: '/delete-account',
  confirmDeletion: '/delete-account/confirm',
} as const;

export type PagePath = (typeof paths)[keyof typeof paths];

/** Section anchors of the landing page that the header menu links to. */
export const sections = {
  features: 'features',
  howItWorks: 'workssection',
  faqs: 'faqs',
  getStarted: 'getstarted',
} as const;

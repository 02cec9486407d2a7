import type { FeatureCard } from '@gift/ui';
import { businessPageCards, withoutImage } from './shared.content.ts';

export const businessHome = {
  hero: {
    eyebrow: 'Corporate gifting for every team',
    title: 'Create Memorable Moments for Your Team',
    intro:
      'Corporate gifting for employees, partners and clients: budgets, approvals, events and reports in one app your whole company can use.',
  },
  features: {
    title: 'Everything corporate gifting needs',
    items: [
      {
        id: 'budget-tracking',
        title: 'Budget Tracking',
        description: 'Budgets per event or gift, with spending visible in real time.',
        icon: 'coins',
      },
      {
        id: 'event-planning',
        title: 'Event Planning',
        description: 'Plan birthdays, anniversaries and milestones with dates, themes and participants.',
        icon: 'calendar',
      },
      {
        id: 'team-gift-requests',
        title: 'Team Gift Requests',
        description: 'Teams request gifts through a simple approval process.',
        icon: 'inbox',
      },
      {
        id: 'spending-reports',
        title: 'Spending Reports',
        description: 'Clear reports by team, occasion and vendor, ready for finance.',
        icon: 'chart',
      },
    ] satisfies FeatureCard[],
  },
  offers: {
    title: 'What we offer',
    items: [businessPageCards.manageTeam, businessPageCards.budgetTracking, businessPageCards.teamGifting].map(
      withoutImage,
    ),
  },
  celebration: {
    title: 'Celebrate every win, big or small',
    body: 'Work anniversaries, new joiners, promotions, a deal closed on Friday: recognition that arrives on time makes people feel seen. Set it up once and never miss a moment again.',
  },
};

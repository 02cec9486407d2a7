import { paths, sections } from '@gift/content';
import type { LinkCard } from '@gift/ui';
import perkBudgets from '../assets/perk-budgets.svg';
import perkCelebrations from '../assets/perk-celebrations.svg';
import perkTeams from '../assets/perk-teams.svg';

/** The banner at the foot of every business page. */
export const corporateBanner = {
  title: 'Ready to Enhance Your Corporate Gifting?',
  text: 'Bring budgets, approvals and celebrations together in one place for your whole company.',
  cta: 'Get started',
  to: { pathname: paths.business, hash: sections.getStarted },
};

export const faqTitle = 'Frequently Asked Questions';

const image = (src: string) => ({ src, width: 480, height: 300 });

/** The business pages, as cards that link to each other. */
export const businessPageCards = {
  business: {
    id: 'corporate-gifting',
    title: 'Corporate Gifting',
    description: 'Celebrate employees, partners and clients with gifts that arrive on time and within budget.',
    link: { to: paths.business, label: 'Explore corporate gifting' },
    image: image(perkCelebrations),
  },
  manageTeam: {
    id: 'manage-teams',
    title: 'Manage Teams',
    description: 'Add and organise teams, assign roles and keep everyone in the celebration loop.',
    link: { to: paths.manageTeam, label: 'Manage teams' },
    image: image(perkTeams),
  },
  budgetTracking: {
    id: 'budget-tracking',
    title: 'Budget Tracking',
    description: 'Set budgets per event or gift and follow every spend in real time.',
    link: { to: paths.budgetTracking, label: 'Track budgets' },
    image: image(perkBudgets),
  },
  teamGifting: {
    id: 'team-gifting',
    title: 'Gifting for Teams',
    description: 'Easy selection, automated approvals and occasions tailored to every team.',
    link: { to: paths.teamGifting, label: 'Simplify team gifting' },
    image: image(perkCelebrations),
  },
} satisfies Record<string, LinkCard>;

/** Plain link cards (no picture) for the sibling links on the sub-pages. */
export const withoutImage = (card: LinkCard): LinkCard => ({ ...card, image: undefined });

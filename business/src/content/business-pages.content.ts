import type { BusinessPageContent } from './business-page.ts';
import { budgetsArt, celebrationArt, teamsArt } from './business-art.ts';
import { businessPageCards, withoutImage } from './shared.content.ts';

const { business, manageTeam: manageTeamCard, budgetTracking: budgetCard, teamGifting: teamCard } = businessPageCards;

export const manageTeam = {
  title: 'Manage Teams',
  intro: 'Organise the people you celebrate, and the people who help you do it.',
  art: teamsArt,
  features: {
    title: 'Everything to run your teams',
    items: [
      {
        id: 'add-organise-teams',
        title: 'Add and organise teams',
        description: 'Create teams by department, office or project and keep members up to date in one list.',
        icon: 'users',
      },
      {
        id: 'assign-roles',
        title: 'Assign roles and responsibilities',
        description: 'Decide who plans, who approves and who pays, so every celebration has an owner.',
        icon: 'badge',
      },
      {
        id: 'track-engagement',
        title: 'Track team engagement',
        description: 'See which teams celebrate together and who has not been recognised for a while.',
        icon: 'activity',
      },
    ],
  },
  howItWorks: {
    title: 'How It Works',
    steps: [
      { id: 'create', title: 'Create your teams', body: 'Invite colleagues by email or import them in one go.' },
      { id: 'roles', title: 'Assign roles', body: 'Give planners, approvers and budget owners the access they need.' },
      {
        id: 'celebrate',
        title: 'Celebrate together',
        body: 'Plan occasions, collect contributions and send gifts as a team.',
      },
    ],
  },
  related: { title: 'Explore more for your business', items: [business, budgetCard, teamCard].map(withoutImage) },
} satisfies BusinessPageContent;

export const budgetTracking = {
  title: 'Budget Tracking',
  intro: 'Give generously and stay on budget, for every event and every gift.',
  art: budgetsArt,
  features: {
    title: 'Budgets you can trust',
    items: [
      {
        id: 'custom-budgets',
        title: 'Set custom budgets',
        description: 'Set a budget per event, per gift, per team or per quarter, and adjust it when plans change.',
        icon: 'coins',
      },
      {
        id: 'real-time-spending',
        title: 'Monitor spending in real time',
        description: 'Every order updates the remaining budget at once, so there are no surprises at month end.',
        icon: 'gauge',
      },
      {
        id: 'detailed-reports',
        title: 'Detailed reports',
        description: 'Break spending down by team, occasion and vendor, and export it for finance.',
        icon: 'chart',
      },
    ],
  },
  howItWorks: {
    title: 'How It Works',
    steps: [
      { id: 'set', title: 'Set your budgets', body: 'Choose amounts per event or gift and who may spend them.' },
      {
        id: 'spend',
        title: 'Gift within limits',
        body: 'Requests show what is left, and over-budget orders need approval.',
      },
      {
        id: 'review',
        title: 'Review the reports',
        body: 'See where the money went and plan the next quarter with confidence.',
      },
    ],
  },
  related: { title: 'Explore more for your business', items: [business, manageTeamCard, teamCard].map(withoutImage) },
} satisfies BusinessPageContent;

const teamGiftingFeatures = [
  {
    id: 'easy-gift-selection',
    title: 'Easy Gift Selection',
    description: 'Allocate budgets per team and occasion, adjust them anytime, and let teams choose within them.',
    icon: 'gift',
  },
  {
    id: 'automated-approval',
    title: 'Automated Approval Process',
    description: 'Gift requests go to the right approver automatically, with budgets checked along the way.',
    icon: 'check',
  },
  {
    id: 'tailored-occasions',
    title: 'Tailored Occasions and Experiences',
    description: 'Customised gifts and celebrations for birthdays, milestones and team wins.',
    icon: 'sparkles',
  },
] as const;

export const teamGifting = {
  title: 'Simplify Gifting for Teams',
  intro: 'From choosing the gift to getting it approved, team gifting takes minutes, not meetings.',
  art: celebrationArt,
  features: { title: 'Features', items: [...teamGiftingFeatures] },
  howItWorks: {
    title: 'How It Works',
    steps: teamGiftingFeatures.map(({ id, title, description }) => ({ id, title, body: description })),
  },
  related: { title: 'Team Celebrations and Business Perks', items: [business, manageTeamCard, budgetCard] },
} satisfies BusinessPageContent;

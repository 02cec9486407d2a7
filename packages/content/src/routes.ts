import { paths } from './paths.ts';

export type RemoteId = 'consumer' | 'vendor' | 'business' | 'legal' | 'account' | 'share_location';

export interface PageRoute {
  /** Route pattern as the router reads it. */
  path: string;
  /** The remote that owns the page and the module it exposes. */
  remote: RemoteId;
  module: string;
  title: string;
  description: string;
  /** Pages with their own header (the vendor page) hide the shell's. */
  ownHeader?: boolean;
}

/** Which remote serves which route: the shell builds its router from this, the server its 404s. */
export const pageRoutes = [
  {
    path: paths.home,
    remote: 'consumer',
    module: './landing-page',
    title: 'Pick, personalise and send gifts',
    description: 'Find gift ideas, remember every occasion and send thoughtful gifts to people and groups.',
  },
  {
    path: paths.scrollLockDemo,
    remote: 'consumer',
    module: './scroll-lock-page',
    title: 'Scroll-lock demo',
    description: 'A demonstration of scroll locking around an inner scrolling card.',
  },
  {
    path: paths.vendor,
    remote: 'vendor',
    module: './vendor-page',
    title: 'Sell your gifts with us',
    description: 'Gift shops, bakeries and florists: reach new customers through the gifting marketplace.',
    ownHeader: true,
  },
  {
    path: paths.business,
    remote: 'business',
    module: './business-page',
    title: 'Corporate gifting',
    description: 'Corporate gifting for teams: budgets, approvals, events and spending reports in one place.',
  },
  {
    path: paths.manageTeam,
    remote: 'business',
    module: './manage-team-page',
    title: 'Manage teams',
    description: 'Add and organise teams, assign roles and track team engagement in corporate gifting.',
  },
  {
    path: paths.budgetTracking,
    remote: 'business',
    module: './budget-tracking-page',
    title: 'Budget tracking',
    description: 'Set custom gifting budgets, monitor spending in real time and get detailed reports.',
  },
  {
    path: paths.teamGifting,
    remote: 'business',
    module: './team-gifting-page',
    title: 'Simplify gifting for teams',
    description: 'Easy gift selection, automated approvals and tailored occasions for every team.',
  },
  {
    path: `${paths.shareLocation}/*`,
    remote: 'share_location',
    module: './share-location-page',
    title: 'Share your delivery location',
    description: 'Tell the sender where your gift should be delivered.',
  },
  {
    path: paths.privacy,
    remote: 'legal',
    module: './privacy-page',
    title: 'Privacy Policy',
    description: 'What personal data the gifting platform collects, why, with whom it is shared and your rights.',
  },
  {
    path: paths.terms,
    remote: 'legal',
    module: './terms-page',
    title: 'Terms & Conditions',
    description: 'The terms that apply when you use the gifting platform and its apps.',
  },
  {
    path: paths.deleteAccount,
    remote: 'account',
    module: './delete-account-page',
    title: 'Delete your account',
    description: 'Ask for your account and its personal data to be deleted.',
  },
  {
    path: paths.confirmDeletion,
    remote: 'account',
    module: './confirm-deletion-page',
    title: 'Confirm your deletion request',
    description: 'Confirm that you asked for your account to be deleted.',
  },
] as const satisfies readonly PageRoute[];

/** True when a route pattern (`/terms`, `/share-location/*`) covers a URL path without a trailing slash. */
export function matchesRoute(pattern: string, path: string): boolean {
  return pattern.endsWith('/*')
    ? path === pattern.slice(0, -2) || path.startsWith(pattern.slice(0, -1))
    : path === pattern;
}

/** A URL path without its trailing slashes (`/terms/` is `/terms`); `/` stays `/`. */
export const withoutTrailingSlash = (pathname: string) =>
  pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;

/** True when a URL path is one of the site's pages (the server answers 404 otherwise). */
export function isPagePath(pathname: string): boolean {
  const path = withoutTrailingSlash(pathname);
  return pageRoutes.some((route) => matchesRoute(route.path, path));
}

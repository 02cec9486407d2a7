import type { RemoteName } from '@gift/federation';
import { paths } from './paths.ts';

export interface PageRoute {
  /** Route pattern as the router reads it. */
  path: string;
  /** The remote that owns the page and the module it exposes. */
  remote: RemoteName;
  module: string;
  title: string;
  description: string;
  /** Pages with their own header (the vendor page) hide the shell's. */
  ownHeader?: boolean;
  /** Rendered to HTML at build time: true when the page's content depends on its address alone. */
  prerender: boolean;
  /** Listed in `sitemap.xml` for search engines. */
  inSitemap: boolean;
  /**
   * Under a `/*` pattern, what the rest of an address may be for the route to own it (a share link's token):
   * any other address under the pattern (`/share-location/app.js`) is no page, and answers the not-found page.
   */
  rest?: RegExp;
}

/** Which remote serves which route: the shell builds its router from this, the server its 404s. */
export const pageRoutes = [
  {
    path: paths.home,
    remote: 'consumer',
    module: './landing-page',
    title: 'Pick, personalise and send gifts',
    description: 'Find gift ideas, remember every occasion and send thoughtful gifts to people and groups.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.scrollLockDemo,
    remote: 'consumer',
    module: './scroll-lock-page',
    title: 'Scroll-lock demo',
    description: 'A demonstration of scroll locking around an inner scrolling card.',
    // A demonstration, not a page for search engines.
    prerender: true,
    inSitemap: false,
  },
  {
    path: paths.vendor,
    remote: 'vendor',
    module: './vendor-page',
    title: 'Sell your gifts with us',
    description: 'Gift shops, bakeries and florists: reach new customers through the gifting marketplace.',
    ownHeader: true,
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.business,
    remote: 'business',
    module: './business-page',
    title: 'Corporate gifting',
    description: 'Corporate gifting for teams: budgets, approvals, events and spending reports in one place.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.manageTeam,
    remote: 'business',
    module: './manage-team-page',
    title: 'Manage teams',
    description: 'Add and organise teams, assign roles and track team engagement in corporate gifting.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.budgetTracking,
    remote: 'business',
    module: './budget-tracking-page',
    title: 'Budget tracking',
    description: 'Set custom gifting budgets, monitor spending in real time and get detailed reports.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.teamGifting,
    remote: 'business',
    module: './team-gifting-page',
    title: 'Simplify gifting for teams',
    description: 'Easy gift selection, automated approvals and tailored occasions for every team.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: `${paths.shareLocation}/*`,
    remote: 'share_location',
    module: './share-location-page',
    title: 'Share your delivery location',
    description: 'Tell the sender where your gift should be delivered.',
    // Each share link is its own address: rendered when asked for.
    prerender: false,
    inSitemap: false,
    // Sub-paths of a token's characters (the page says when they are not a well-formed token), never a file's name.
    rest: /^[/A-Za-z0-9_-]*$/,
  },
  {
    path: paths.privacy,
    remote: 'legal',
    module: './privacy-page',
    title: 'Privacy Policy',
    description: 'What personal data the gifting platform collects, why, with whom it is shared and your rights.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.terms,
    remote: 'legal',
    module: './terms-page',
    title: 'Terms & Conditions',
    description: 'The terms that apply when you use the gifting platform and its apps.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.deleteAccount,
    remote: 'account',
    module: './delete-account-page',
    title: 'Delete your account',
    description: 'Ask for your account and its personal data to be deleted.',
    prerender: true,
    inSitemap: true,
  },
  {
    path: paths.confirmDeletion,
    remote: 'account',
    module: './confirm-deletion-page',
    title: 'Confirm your deletion request',
    description: 'Confirm that you asked for your account to be deleted.',
    // What it shows depends on the token in the link's fragment, which only the browser reads.
    prerender: false,
    inSitemap: false,
  },
] as const satisfies readonly PageRoute[];

/** The pages a remote exposes, by the module names the routes give. */
export const routesOf = (remote: RemoteName) => pageRoutes.filter((route) => route.remote === remote);

/** Where a remote keeps the page a route names: `./landing-page` is `src/pages/landing-page.tsx`. */
export const pageModuleFile = (module: string) => `./src/pages/${module.replace(/^\.\//, '')}.tsx`;

/** A remote's federation `exposes`, from the route table: a new page is a new route and its file. */
export const exposedPages = (remote: RemoteName) =>
  Object.fromEntries(routesOf(remote).map((route) => [route.module, pageModuleFile(route.module)]));

/** A URL path without its trailing slashes (`/terms/` is `/terms`); `/` stays `/`. */
export const withoutTrailingSlash = (pathname: string) =>
  pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;

export interface RouteMatch {
  route: PageRoute;
  /** The address as the site spells it: where any other spelling of it is sent. */
  canonicalPath: string;
}

/**
 * The site's one rule for which page an address shows, used by the server, its headers and the browser alike. A
 * page's address is lower case: `/privacy` (or `/privacy/`) is the page, `/PRIVACY` is another spelling of it that
 * is sent there, and the rest of a share link (`/share-location/<token>`) is kept exactly as written.
 */
export function matchRoute(pathname: string): RouteMatch | undefined {
  const path = withoutTrailingSlash(pathname);
  for (const route of pageRoutes as readonly PageRoute[]) {
    const base = route.path.endsWith('/*') ? route.path.slice(0, -2) : route.path;
    const rest = path.slice(base.length);
    const covered = route.path.endsWith('/*')
      ? (rest === '' || rest.startsWith('/')) && (route.rest?.test(rest) ?? true)
      : rest === '';
    if (covered && path.slice(0, base.length).toLowerCase() === base) return { route, canonicalPath: base + rest };
  }
  return undefined;
}

/** The page at exactly this address, or undefined (another spelling of a page is not that page). */
export function routeAt(pathname: string): PageRoute | undefined {
  const match = matchRoute(pathname);
  return match?.canonicalPath === withoutTrailingSlash(pathname) ? match.route : undefined;
}

/** A share link's address with a well-formed token: its page renders whether or not the share exists. */
export const exampleShareLink = `${paths.shareLocation}/gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7`;

/** One address that shows a route's page: its path, or for the share-location route `exampleShareLink`. */
export const examplePath = (route: PageRoute) => (route.path.endsWith('/*') ? exampleShareLink : route.path);

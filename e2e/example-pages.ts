import { pageRoutes, paths } from '@gift/content';

/** A share link's address with a well-formed token: its page renders whether or not the share exists. */
export const exampleShareLink = `${paths.shareLocation}/gift_4f2a9c7d1e8b3a6f`;

/** One address for every page route, the share-location route by `exampleShareLink`. */
export const examplePagePaths = pageRoutes.map((route) =>
  route.path.endsWith('/*') ? exampleShareLink : (route.path as string),
);

import { examplePath, pageRoutes } from '@gift/content';

export { exampleShareLink } from '@gift/content';

/** One address for every page route, the share-location route by `exampleShareLink`. */
export const examplePagePaths = pageRoutes.map(examplePath);

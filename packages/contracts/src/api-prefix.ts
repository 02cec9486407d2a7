/** Where the API is mounted, on the site's own origin (a module of its own, so that a page importing it gets nothing else). */
export const apiPrefix = '/api';

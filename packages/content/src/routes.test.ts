import { describe, expect, it } from 'vitest';
import { isPagePath, pageRoutes } from './routes.ts';

describe('isPagePath', () => {
  it('knows every route of the spec', () => {
    for (const path of ['/', '/vendor', '/business', '/manageteam', '/budget-tracking', '/team-gifting', '/test']) {
      expect(isPagePath(path), path).toBe(true);
    }
    for (const path of ['/privacy', '/terms', '/delete-account', '/share-location', '/share-location/abc/def']) {
      expect(isPagePath(path), path).toBe(true);
    }
  });

  it('accepts a trailing slash and rejects unknown paths and look-alikes', () => {
    expect(isPagePath('/privacy/')).toBe(true);
    expect(isPagePath('/privacy-policy')).toBe(false);
    expect(isPagePath('/share-locations')).toBe(false);
    expect(isPagePath('/nope')).toBe(false);
  });

  it('gives every route a title and description', () => {
    for (const route of pageRoutes) {
      expect(route.title.length, route.path).toBeGreaterThan(3);
      expect(route.description.length, route.path).toBeGreaterThan(20);
    }
  });
});

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { remotes } from '@gift/federation';
import { describe, expect, it } from 'vitest';
import { matchRoute, pageModuleFile, pageRoutes, routeAt } from './routes.ts';

describe('matchRoute, the one rule for which page an address shows', () => {
  it('knows every route of the spec', () => {
    for (const path of ['/', '/vendor', '/business', '/manageteam', '/budget-tracking', '/team-gifting', '/test']) {
      expect(routeAt(path), path).toBeDefined();
    }
    for (const path of ['/privacy', '/terms', '/delete-account', '/share-location', '/share-location/abc/def']) {
      expect(routeAt(path), path).toBeDefined();
    }
  });

  it('accepts a trailing slash and rejects unknown paths and look-alikes', () => {
    expect(routeAt('/privacy/')?.path).toBe('/privacy');
    for (const path of ['/privacy-policy', '/share-locations', '/nope', '/privacy/more']) {
      expect(matchRoute(path), path).toBeUndefined();
    }
  });

  it('leaves a file-like address under the share-location pattern to the not-found page', () => {
    for (const path of [
      '/share-location/app.js',
      '/share-location/x/style.css',
      '/share-location/a.map',
      '/share-location/%2e',
    ]) {
      expect(matchRoute(path), path).toBeUndefined();
    }
  });

  it('sends other spellings of a page to its address, keeping a share link’s token as written', () => {
    expect(matchRoute('/PRIVACY')).toMatchObject({ canonicalPath: '/privacy', route: { path: '/privacy' } });
    expect(routeAt('/PRIVACY')).toBeUndefined();
    expect(matchRoute('/Share-Location/AbC_123')?.canonicalPath).toBe('/share-location/AbC_123');
    expect(matchRoute('/share-location/AbC_123')?.canonicalPath).toBe('/share-location/AbC_123');
  });

  it('names, for every route, a page file that its remote has', () => {
    const root = new URL('../../../', import.meta.url);
    for (const route of pageRoutes) {
      const file = fileURLToPath(new URL(`${remotes[route.remote].folder}/${pageModuleFile(route.module)}`, root));
      expect(existsSync(file), `${route.path}: ${route.module}`).toBe(true);
    }
  });

  it('gives every route a title and description', () => {
    for (const route of pageRoutes) {
      // A word or a line: "FAQ" is a title; a tab's label stays readable up to 80 characters.
      expect(route.title.trim().length, route.path).toBeGreaterThan(0);
      expect(route.title.length, route.path).toBeLessThanOrEqual(80);
      expect(route.description.length, route.path).toBeGreaterThan(20);
    }
  });
});

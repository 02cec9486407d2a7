import { beforeEach, describe, expect, it, vi } from 'vitest';
import { notFoundPrerenderedRoute, paths, type PageRoute } from '@gift/content';
import { startMode } from './hydration.ts';
import { createPageSource } from './page-source.ts';
import type { PageLoad } from './remotes.ts';

const currentEntry = vi.hoisted(() => vi.fn<(remote: string) => Promise<string | undefined>>());
vi.mock('./remotes.ts', () => ({ currentEntry }));

const entry = '/remotes/legal/remoteEntry.js?v=one';
const loaded: PageLoad = { ok: true, Page: () => null };

/** The #root element as the server sends it: the route it rendered, with which build of its remote. */
function serverRoot(route: string | undefined) {
  const root = document.createElement('div');
  if (route) root.dataset.prerenderedRoute = route;
  root.dataset.remoteEntry = entry;
  return root;
}

const sourceWith = (result: PageLoad) => createPageSource(() => Promise.resolve(result));

describe('startMode', () => {
  beforeEach(() => {
    currentEntry.mockReset().mockResolvedValue(entry);
  });

  it('hydrates the server page of a route whose remote loaded, from the build it was rendered with', async () => {
    expect(await startMode(serverRoot(paths.privacy), sourceWith(loaded))).toBe('hydrate');
  });

  it('renders afresh when the remote was redeployed since the page was rendered', async () => {
    currentEntry.mockResolvedValue('/remotes/legal/remoteEntry.js?v=two');
    expect(await startMode(serverRoot(paths.privacy), sourceWith(loaded))).toBe('render');
  });

  it('renders when the HTML holds no page of a route (the shell alone)', async () => {
    expect(await startMode(serverRoot(undefined), sourceWith(loaded))).toBe('render');
  });

  it('hydrates the not-found page, which needs no remote', async () => {
    const load = vi.fn<(route: PageRoute) => Promise<PageLoad>>();
    expect(await startMode(serverRoot(notFoundPrerenderedRoute), createPageSource(load))).toBe('hydrate');
    expect(load).not.toHaveBeenCalled();
  });

  it.each(['failed', 'refused', 'not-deployed'] as const)(
    'keeps the server page when its remote cannot be loaded (%s), rather than rendering over it',
    async (reason) => {
      expect(await startMode(serverRoot(paths.deleteAccount), sourceWith({ ok: false, reason }))).toBe('keep');
    },
  );

  it('keeps the server page when the manifest cannot be read', async () => {
    currentEntry.mockRejectedValue(new Error('The remotes manifest answered HTTP 500'));
    expect(await startMode(serverRoot(paths.privacy), sourceWith(loaded))).toBe('keep');
  });
});

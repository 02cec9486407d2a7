import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { startTransition, Suspense, useState } from 'react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PageRoute } from '@gift/content';
import { createPageSource, PageSourceContext } from './page-source.ts';
import { RemotePage } from './remote-page.tsx';
import type { PageLoad } from './remotes.ts';

const route: PageRoute = {
  path: '/terms',
  remote: 'legal',
  module: './terms-page',
  title: 'Terms',
  description: 'Terms',
  prerender: true,
  inSitemap: true,
};

const load = vi.fn<(route: PageRoute) => Promise<PageLoad>>();
const reload = vi.fn<(route: PageRoute) => Promise<PageLoad>>();

// React resumes a suspended render from inside act() only in tests.
async function renderRoute() {
  await act(async () => {
    render(
      <PageSourceContext value={createPageSource(load, reload)}>
        <MemoryRouter initialEntries={['/terms']}>
          <Suspense fallback={<p>Loading</p>}>
            <RemotePage route={route} />
          </Suspense>
        </MemoryRouter>
      </PageSourceContext>,
    );
  });
}

describe('RemotePage', () => {
  beforeEach(() => {
    load.mockReset();
    reload.mockReset();
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  it('shows the loading state, then the remote page once it has loaded', async () => {
    let loaded: (result: PageLoad) => void = () => {};
    load.mockReturnValue(new Promise((resolve) => (loaded = resolve)));
    await renderRoute();
    expect(screen.getByText('Loading')).toBeInTheDocument();
    await act(async () => loaded({ ok: true, Page: () => <h1>Terms & Conditions</h1> }));
    expect(screen.getByRole('heading', { name: 'Terms & Conditions' })).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('keeps the previous page on screen while a navigation waits for the next one', async () => {
    let loaded: (result: PageLoad) => void = () => {};
    load.mockReturnValue(new Promise((resolve) => (loaded = resolve)));
    let navigate = () => {};
    function Navigation() {
      const [arrived, setArrived] = useState(false);
      navigate = () => startTransition(() => setArrived(true));
      return arrived ? <RemotePage route={route} /> : <h1>Privacy Policy</h1>;
    }
    await act(async () => {
      render(
        <PageSourceContext value={createPageSource(load, reload)}>
          <MemoryRouter initialEntries={['/terms']}>
            <Suspense fallback={<p>Loading</p>}>
              <Navigation />
            </Suspense>
          </MemoryRouter>
        </PageSourceContext>,
      );
    });
    await act(async () => navigate());
    expect(screen.getByRole('heading', { name: 'Privacy Policy' })).toBeInTheDocument();
    expect(screen.queryByText('Loading')).not.toBeInTheDocument();
    await act(async () => loaded({ ok: true, Page: () => <h1>Terms & Conditions</h1> }));
    expect(screen.getByRole('heading', { name: 'Terms & Conditions' })).toBeInTheDocument();
    // React warns when a render that suspended does not suspend on the same promise when it is replayed.
    expect(console.error).not.toHaveBeenCalled();
  });

  it('shows the unavailable message and loads again when the visitor retries', async () => {
    load.mockResolvedValue({ ok: false, reason: 'failed' });
    let succeed: (result: PageLoad) => void = () => {};
    reload.mockReturnValue(new Promise((resolve) => (succeed = resolve)));
    await renderRoute();
    expect(await screen.findByRole('heading', { name: 'This part of the site is unavailable' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(reload).toHaveBeenCalledWith(route);
    // The message stays while the new attempt runs, with the button saying so.
    expect(screen.getByRole('button', { name: 'Trying again…' })).toBeDisabled();
    await act(async () => succeed({ ok: true, Page: () => <h1>Terms & Conditions</h1> }));
    expect(await screen.findByRole('heading', { name: 'Terms & Conditions' })).toBeInTheDocument();
  });

  it('contains a page that throws while rendering to the unavailable message', async () => {
    const Broken = () => {
      throw new Error('render failure');
    };
    load.mockResolvedValue({ ok: true, Page: Broken });
    await renderRoute();
    expect(await screen.findByRole('heading', { name: 'This part of the site is unavailable' })).toBeInTheDocument();
    expect(console.error).toHaveBeenCalledWith(
      expect.stringContaining('A page of the legal remote failed while rendering'),
      expect.any(Error),
      expect.anything(),
    );
  });
});

import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PageRoute } from '@gift/content';
import type { PageLoad } from './remotes.ts';

const remotes = vi.hoisted(() => ({ loadPage: vi.fn(), reloadPage: vi.fn() }));
vi.mock('./remotes.ts', () => remotes);

const { RemotePage } = await import('./remote-page.tsx');

const route: PageRoute = {
  path: '/terms',
  remote: 'legal',
  module: './terms-page',
  title: 'Terms',
  description: 'Terms',
};

function renderRoute() {
  const router = createMemoryRouter(
    [
      {
        path: '/terms',
        loader: () => remotes.loadPage(),
        element: <RemotePage route={route} />,
        HydrateFallback: () => <p>Loading</p>,
      },
    ],
    { initialEntries: ['/terms'] },
  );
  render(<RouterProvider router={router} />);
}

describe('RemotePage', () => {
  beforeEach(() => {
    remotes.loadPage.mockReset();
    remotes.reloadPage.mockReset();
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  it('renders the remote page once it has loaded', async () => {
    remotes.loadPage.mockResolvedValue({ ok: true, Page: () => <h1>Terms & Conditions</h1> } satisfies PageLoad);
    renderRoute();
    expect(await screen.findByRole('heading', { name: 'Terms & Conditions' })).toBeInTheDocument();
  });

  it('shows the unavailable message and loads again when the visitor retries', async () => {
    remotes.loadPage
      .mockResolvedValueOnce({ ok: false, reason: 'failed' } satisfies PageLoad)
      .mockResolvedValueOnce({ ok: true, Page: () => <h1>Terms & Conditions</h1> } satisfies PageLoad);
    renderRoute();
    expect(await screen.findByRole('heading', { name: 'This part of the site is unavailable' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(remotes.reloadPage).toHaveBeenCalledWith('legal', './terms-page');
    expect(await screen.findByRole('heading', { name: 'Terms & Conditions' })).toBeInTheDocument();
  });

  it('contains a page that throws while rendering to the unavailable message', async () => {
    const Broken = () => {
      throw new Error('render failure');
    };
    remotes.loadPage.mockResolvedValue({ ok: true, Page: Broken } satisfies PageLoad);
    renderRoute();
    expect(await screen.findByRole('heading', { name: 'This part of the site is unavailable' })).toBeInTheDocument();
    expect(console.error).toHaveBeenCalledWith(
      expect.stringContaining('A page of the legal remote failed while rendering'),
      expect.any(Error),
      expect.anything(),
    );
  });
});

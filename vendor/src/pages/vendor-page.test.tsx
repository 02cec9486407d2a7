import { render, screen, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from '@gift/router/testing';
import { describe, expect, it } from 'vitest';
import { site } from '@gift/content';
import { VendorPage } from './vendor-page.tsx';

function renderPage() {
  const router = createMemoryRouter([{ path: '*', element: <VendorPage /> }], { initialEntries: ['/vendor'] });
  render(<RouterProvider router={router} />);
}

describe('VendorPage', () => {
  it('opens the portal’s login and sign-up from its own header, each in a new tab without an opener', () => {
    renderPage();
    // A popover, hidden here until opened (jsdom has no wide screen on which it always shows).
    const menu = document.getElementById('vendor-menu')!;
    expect(menu).toHaveAttribute('aria-label', 'Vendor');
    const login = within(menu).getByRole('link', { name: /Login/, hidden: true });
    const signup = within(menu).getByRole('link', { name: /Signup/, hidden: true });
    expect(login).toHaveAttribute('href', site.portal.login);
    expect(signup).toHaveAttribute('href', site.portal.register);
    for (const link of [login, signup]) {
      expect(link).toHaveAttribute('target', '_blank');
      expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    }
  });

  it('leads to the portal’s register page from the hero', () => {
    renderPage();
    expect(screen.getByRole('link', { name: /Become a vendor/ })).toHaveAttribute('href', site.portal.register);
  });

  it('shows three benefits, the three business types, three steps, two testimonials, the FAQ and the banner', () => {
    renderPage();
    const cardsIn = (name: string) =>
      within(screen.getByRole('region', { name })).getAllByRole('heading', { level: 3 });
    expect(cardsIn('Why partner with us')).toHaveLength(3);
    expect(cardsIn('Made for businesses like yours').map((heading) => heading.textContent)).toEqual([
      'Gift Shops',
      'Bakeries',
      'Florists',
    ]);
    expect(cardsIn('How it works')).toHaveLength(3);
    expect(within(screen.getByRole('region', { name: 'What our partners say' })).getAllByRole('figure')).toHaveLength(
      2,
    );
    expect(
      within(screen.getByRole('region', { name: 'Frequently Asked Questions' })).getAllByRole('heading', { level: 3 }),
    ).toHaveLength(6);
    const banner = screen.getByRole('region', { name: 'Ready to grow your gift business?' });
    expect(within(banner).getByRole('link')).toHaveAttribute('href', site.portal.register);
  });
});

import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, Link, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeaderBar } from './header-bar.tsx';

// The popover itself (open, close, Escape, expanded state) is the browser's: e2e/tests/menu.spec.ts drives it.
function renderHeader() {
  const header = (
    <HeaderBar menuLabel="Main" menuId="site-menu">
      <li>
        <Link to="/#workssection">How It Works</Link>
      </li>
      <li>
        <a href="https://portal.example/login">Login</a>
      </li>
    </HeaderBar>
  );
  const router = createMemoryRouter([{ path: '*', element: header }], { initialEntries: ['/terms'] });
  render(<RouterProvider router={router} />);
  return { router };
}

// jsdom has no popovers: here every popover is open from the start, and being hidden is recorded.
const hidePopover = vi.fn();
const matches = HTMLElement.prototype.matches;
beforeEach(() => {
  hidePopover.mockClear();
  Object.assign(HTMLElement.prototype, {
    hidePopover,
    matches(this: HTMLElement, selector: string) {
      return selector === ':popover-open' ? this.hasAttribute('popover') : matches.call(this, selector);
    },
  });
});
afterEach(() => {
  Object.assign(HTMLElement.prototype, { matches });
  Reflect.deleteProperty(HTMLElement.prototype, 'hidePopover');
});

describe('HeaderBar', () => {
  it('has a toggle named Menu that opens the navigation as a popover', () => {
    renderHeader();
    const toggle = screen.getByRole('button', { name: 'Menu' });
    const menu = document.getElementById(toggle.getAttribute('popovertarget')!);
    expect(menu).toHaveAttribute('popover', 'auto');
    expect(menu).toHaveAttribute('aria-label', 'Main');
  });

  it('closes the menu when an item is pressed, and the item still navigates', async () => {
    const { router } = renderHeader();
    await userEvent.click(screen.getByRole('link', { name: 'How It Works', hidden: true }));
    expect(router.state.location.pathname).toBe('/');
    expect(router.state.location.hash).toBe('#workssection');
    expect(hidePopover).toHaveBeenCalled();
  });

  it('closes the menu when the page changes some other way', async () => {
    const { router } = renderHeader();
    hidePopover.mockClear();
    await act(() => router.navigate('/privacy'));
    expect(hidePopover).toHaveBeenCalled();
  });

  it('leaves the menu as it is when it mounts (a menu opened before hydration stays open)', () => {
    renderHeader();
    expect(hidePopover).not.toHaveBeenCalled();
  });

  it('links the logo home', () => {
    renderHeader();
    expect(screen.getByRole('link', { name: /home$/ })).toHaveAttribute('href', '/');
  });
});

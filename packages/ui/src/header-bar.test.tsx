import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, Link, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { useMenu } from '@gift/store';
import { HeaderBar } from './header-bar.tsx';

function renderHeader() {
  useMenu.setState({ open: false });
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
  return router;
}

describe('HeaderBar', () => {
  it('opens and closes the menu with its toggle, which says what it will do', async () => {
    renderHeader();
    const toggle = screen.getByRole('button', { name: 'Open menu' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveAttribute('aria-controls', 'site-menu');
    expect(screen.getByRole('navigation', { name: 'Main' })).toHaveAttribute('data-open', 'false');

    await userEvent.click(toggle);
    expect(screen.getByRole('button', { name: 'Close menu' })).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('navigation', { name: 'Main' })).toHaveAttribute('data-open', 'true');

    await userEvent.click(screen.getByRole('button', { name: 'Close menu' }));
    expect(screen.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('closes when an item is pressed, and the item still navigates', async () => {
    const router = renderHeader();
    await userEvent.click(screen.getByRole('button', { name: 'Open menu' }));
    await userEvent.click(screen.getByRole('link', { name: 'How It Works' }));
    expect(router.state.location.pathname).toBe('/');
    expect(router.state.location.hash).toBe('#workssection');
    expect(screen.getByRole('button', { name: 'Open menu' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('closes on Escape and gives focus back to the toggle', async () => {
    renderHeader();
    await userEvent.click(screen.getByRole('button', { name: 'Open menu' }));
    screen.getByRole('link', { name: 'Login' }).focus();
    await userEvent.keyboard('{Escape}');
    const toggle = screen.getByRole('button', { name: 'Open menu' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveFocus();
  });

  it('links the logo home', () => {
    renderHeader();
    expect(screen.getByRole('link', { name: /home$/ })).toHaveAttribute('href', '/');
  });
});

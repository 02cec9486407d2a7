import { render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { Header } from './header.tsx';

describe('Header', () => {
  it('links Home, Features, How It Works and FAQs to the landing page and its sections', () => {
    const router = createMemoryRouter([{ path: '*', element: <Header /> }], { initialEntries: ['/terms'] });
    render(<RouterProvider router={router} />);
    const menu = screen.getByRole('navigation', { name: 'Main' });
    const links = Array.from(menu.querySelectorAll('a')).map((link) => [link.textContent, link.getAttribute('href')]);
    expect(links).toEqual([
      ['Home', '/'],
      ['Features', '/#features'],
      ['How It Works', '/#workssection'],
      ['FAQs', '/#faqs'],
    ]);
  });
});

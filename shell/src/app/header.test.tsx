import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { Header } from './header.tsx';

describe('Header', () => {
  it('links Home, Features, How It Works and FAQs to the landing page and its sections', () => {
    render(
      <MemoryRouter initialEntries={['/terms']}>
        <Header />
      </MemoryRouter>,
    );
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

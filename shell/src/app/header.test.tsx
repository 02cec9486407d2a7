import { render } from '@testing-library/react';
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
    // A popover, hidden here until opened (jsdom has no wide screen on which it always shows).
    const menu = document.getElementById('site-menu')!;
    expect(menu).toHaveAttribute('aria-label', 'Main');
    const links = Array.from(menu.querySelectorAll('a')).map((link) => [link.textContent, link.getAttribute('href')]);
    expect(links).toEqual([
      ['Home', '/'],
      ['Features', '/#features'],
      ['How It Works', '/#workssection'],
      ['FAQs', '/#faqs'],
    ]);
  });
});

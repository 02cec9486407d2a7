import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { landing } from '../content/landing.content.ts';
import { Features } from './features.tsx';

describe('Features', () => {
  beforeEach(() => {
    Element.prototype.scrollIntoView = vi.fn();
  });

  it('lists the five features and shows the first one', () => {
    render(<Features />);
    const options = screen.getAllByRole('link');
    expect(options.map((option) => option.textContent)).toEqual([
      'Gift Ideas',
      'Manage Relations',
      'Create Groups',
      'Plan Occasions',
      'Send Gifts',
    ]);
    expect(options[0]).toHaveAttribute('aria-current', 'true');
    expect(screen.getByRole('heading', { level: 3, name: 'Gift Ideas' })).toBeInTheDocument();
  });

  it('shows the feature chosen in the list and scrolls to its place', async () => {
    render(<Features />);
    await userEvent.click(screen.getByRole('link', { name: 'Plan Occasions' }));
    expect(screen.getByRole('link', { name: 'Plan Occasions' })).toHaveAttribute('aria-current', 'true');
    expect(screen.getByRole('link', { name: 'Gift Ideas' })).toHaveAttribute('aria-current', 'false');
    expect(await screen.findByRole('heading', { level: 3, name: 'Plan Occasions' })).toBeInTheDocument();
    expect(screen.getByText(landing.features.items[3]!.description)).toBeInTheDocument();
    expect(Element.prototype.scrollIntoView).toHaveBeenCalled();
  });

  it('links each option to its feature’s place, so a choice before hydration scrolls there natively', () => {
    render(<Features />);
    for (const item of landing.features.items) {
      const href = screen.getByRole('link', { name: item.title }).getAttribute('href')!;
      expect(document.querySelector(href)).not.toBeNull();
    }
  });
});

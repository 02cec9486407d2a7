import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { faqEntries } from '@gift/content';
import { Faq } from './faq.tsx';

describe('Faq', () => {
  it('shows the six questions closed, each controlling its hidden answer', () => {
    render(<Faq items={faqEntries} />);
    const toggles = screen.getAllByRole('button');
    expect(toggles).toHaveLength(6);
    for (const toggle of toggles) {
      expect(toggle).toHaveAttribute('aria-expanded', 'false');
      const answer = document.getElementById(toggle.getAttribute('aria-controls')!);
      expect(answer).not.toBeVisible();
    }
  });

  it('opens an answer on press, with Enter and Space too, and closes it again', async () => {
    render(<Faq items={faqEntries} />);
    const toggle = screen.getByRole('button', { name: faqEntries[1]!.question });
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText(faqEntries[1]!.answer)).toBeVisible();
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');

    toggle.focus();
    await userEvent.keyboard('{Enter}');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await userEvent.keyboard(' ');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
  });
});

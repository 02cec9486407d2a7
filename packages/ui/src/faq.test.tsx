import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { faqEntries } from '@gift/content';
import { Faq } from './faq.tsx';

const disclosureOf = (question: string) =>
  screen.getByRole('heading', { level: 3, name: question }).closest('details')!;

describe('Faq', () => {
  it('shows the six questions as headings of closed native disclosures', () => {
    render(<Faq items={faqEntries} />);
    expect(screen.getAllByRole('heading', { level: 3 })).toHaveLength(6);
    for (const { question, answer } of faqEntries) {
      expect(disclosureOf(question)).not.toHaveAttribute('open');
      expect(screen.getByText(answer)).not.toBeVisible();
    }
  });

  it('opens an answer when its question is pressed, and closes it again', async () => {
    render(<Faq items={faqEntries} />);
    const { question, answer } = faqEntries[1]!;
    await userEvent.click(screen.getByText(question));
    expect(disclosureOf(question)).toHaveAttribute('open');
    expect(screen.getByText(answer)).toBeVisible();
    await userEvent.click(screen.getByText(question));
    expect(screen.getByText(answer)).not.toBeVisible();
  });

  it('keeps a question opened before hydration open after it, without a mismatch', async () => {
    const container = document.createElement('div');
    container.innerHTML = renderToString(<Faq items={faqEntries} />);
    document.body.append(container);
    const opened = container.querySelectorAll('details')[2]!;
    opened.open = true;
    const onRecoverableError = vi.fn();
    const warn = vi.spyOn(console, 'error').mockImplementation(() => {});
    await act(async () => {
      hydrateRoot(container, <Faq items={faqEntries} />, { onRecoverableError });
    });
    expect(opened.isConnected).toBe(true);
    expect(opened.open).toBe(true);
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
    container.remove();
  });
});

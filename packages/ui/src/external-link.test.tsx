import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ExternalLink } from './external-link.tsx';

describe('ExternalLink', () => {
  it('opens in a new tab that gets no handle on the site, and says so to screen readers', () => {
    render(
      <ExternalLink className="cta" href="https://portal.example/register">
        Sign up
      </ExternalLink>,
    );
    const link = screen.getByRole('link', { name: /^Sign up\s*\(opens in a new tab\)$/ });
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    expect(link).toHaveAttribute('href', 'https://portal.example/register');
    expect(link).toHaveClass('cta');
  });
});

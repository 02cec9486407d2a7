import { render, screen, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from '@gift/router/testing';
import { describe, expect, it } from 'vitest';
import { faqEntries } from '@gift/content';
import type { BusinessPageContent } from '../content/business-page.ts';
import { budgetTracking, manageTeam, teamGifting } from '../content/business-pages.content.ts';
import { BusinessPage } from './business-page.tsx';

function renderPage(content: BusinessPageContent) {
  const router = createMemoryRouter([{ path: '*', element: <BusinessPage content={content} /> }]);
  render(<RouterProvider router={router} />);
}

const sectionOf = (name: string) => screen.getByRole('region', { name });

describe.each([
  ['/manageteam', manageTeam, ['/business', '/budget-tracking', '/team-gifting']],
  ['/budget-tracking', budgetTracking, ['/business', '/manageteam', '/team-gifting']],
  ['/team-gifting', teamGifting, ['/business', '/manageteam', '/budget-tracking']],
] as const)('BusinessPage for %s', (_path, content, siblings) => {
  it('shows the title, three features and a three-step How It Works', () => {
    renderPage(content);
    expect(screen.getByRole('heading', { level: 1, name: content.title })).toBeInTheDocument();
    const features = within(sectionOf(content.features.title)).getAllByRole('heading', { level: 3 });
    expect(features.map((heading) => heading.textContent)).toEqual(content.features.items.map((item) => item.title));
    expect(within(sectionOf('How It Works')).getAllByRole('listitem')).toHaveLength(3);
  });

  it('links to the three sibling business pages', () => {
    renderPage(content);
    const links = within(sectionOf(content.related.title)).getAllByRole('link');
    expect(links.map((link) => link.getAttribute('href'))).toEqual(siblings);
  });

  it('ends with the shared FAQ and the banner back to the top of /business', () => {
    renderPage(content);
    expect(within(sectionOf('Frequently Asked Questions')).getAllByRole('heading', { level: 3 })).toHaveLength(
      faqEntries.length,
    );
    const banner = sectionOf('Ready to Enhance Your Corporate Gifting?');
    expect(within(banner).getByRole('link', { name: 'Get started' })).toHaveAttribute('href', '/business#getstarted');
  });
});

describe('team gifting content', () => {
  it('has the spec’s three feature cards, repeated as the How It Works steps', () => {
    const titles = ['Easy Gift Selection', 'Automated Approval Process', 'Tailored Occasions and Experiences'];
    expect(teamGifting.title).toBe('Simplify Gifting for Teams');
    expect(teamGifting.features.items.map((item) => item.title)).toEqual(titles);
    expect(teamGifting.howItWorks.steps.map((step) => step.title)).toEqual(titles);
  });

  it('shows three perk cards, each with an image, title, description and link', () => {
    renderPage(teamGifting);
    const perks = within(sectionOf('Team Celebrations and Business Perks')).getAllByRole('article');
    expect(perks).toHaveLength(3);
    for (const perk of perks) {
      const image = perk.querySelector('img');
      expect(image).not.toBeNull();
      expect(image).toHaveAttribute('width');
      expect(image).toHaveAttribute('height');
      expect(within(perk).getByRole('heading', { level: 3 })).toBeInTheDocument();
      expect(within(perk).getByRole('link')).toHaveAttribute('href');
    }
  });
});

import { paths, sections } from './paths.ts';

export interface NavItem {
  label: string;
  to: { pathname: string; hash?: string };
}

/** The shared header's menu: sections of the landing page, reached from any page. */
export const headerNav: NavItem[] = [
  { label: 'Home', to: { pathname: paths.home } },
  { label: 'Features', to: { pathname: paths.home, hash: sections.features } },
  { label: 'How It Works', to: { pathname: paths.home, hash: sections.howItWorks } },
  { label: 'FAQs', to: { pathname: paths.home, hash: sections.faqs } },
];

export const footerNav: NavItem[] = [
  { label: 'Privacy Policy', to: { pathname: paths.privacy } },
  { label: 'Terms & Conditions', to: { pathname: paths.terms } },
];

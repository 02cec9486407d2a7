import type { AnchorHTMLAttributes } from 'react';

/**
 * A link to another site that opens in a new tab: it says so to screen readers, and gives the opened page no
 * handle on this one (`noopener noreferrer`).
 */
export function ExternalLink({ children, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  return (
    <a {...props} target="_blank" rel="noopener noreferrer">
      {children}
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

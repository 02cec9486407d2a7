import { site } from './site.ts';

/** What a page tells browsers, search engines and link previews about itself. */
export interface PageMetadata {
  title: string;
  description: string;
  /** Path of the page; the canonical URL is the site's public address plus this. */
  path: string;
}

/** The unknown-path page, wherever it is named: the router, the prerendered 404, the server's fallback. */
export const notFoundMetadata = {
  title: 'Page not found',
  description: 'The page you were looking for does not exist.',
} as const;

/** How the prerendered unknown-path page names its route on #root, for the shell to hydrate it. */
export const notFoundPrerenderedRoute = 'not-found';

export const documentTitle = (title: string) => `${title} | ${site.brand}`;

/** The `<head>` tags of a page, as HTML. `siteUrl` is the public origin, e.g. https://giftwell.example. */
export function metadataTags({ title, description, path }: PageMetadata, siteUrl: string): string {
  const url = `${siteUrl}${path}`;
  const escape = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const full = escape(documentTitle(title));
  const text = escape(description);
  return [
    `<title>${full}</title>`,
    `<meta name="description" content="${text}" />`,
    `<link rel="canonical" href="${escape(url)}" />`,
    `<meta property="og:type" content="website" />`,
    `<meta property="og:site_name" content="${escape(site.brand)}" />`,
    `<meta property="og:title" content="${full}" />`,
    `<meta property="og:description" content="${text}" />`,
    `<meta property="og:url" content="${escape(url)}" />`,
    `<meta property="og:image" content="${escape(`${siteUrl}/og-image.png`)}" />`,
    `<meta name="twitter:card" content="summary_large_image" />`,
    `<meta name="twitter:title" content="${full}" />`,
    `<meta name="twitter:description" content="${text}" />`,
  ].join('\n    ');
}

/** Organization structured data for the home page (schema.org, JSON-LD). */
export function organizationJsonLd(siteUrl: string): string {
  const data = {
    '@context': 'https://schema.org',
    '@type': 'Organization',
    name: site.brand,
    url: `${siteUrl}/`,
    logo: `${siteUrl}/icon-512.png`,
    email: site.supportEmail,
    sameAs: [site.consumerApp.appStore, site.consumerApp.playStore],
  };
  // `<` cannot end the script element early once escaped.
  return `<script type="application/ld+json">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`;
}

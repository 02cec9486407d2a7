import type { FastifyReply, FastifyRequest } from 'fastify';

export const defaultSiteHosts = ['localhost', '127.0.0.1', '[::1]'];

/** The configured public origin, checked: scheme, host and port, nothing that could leave an attribute. */
export function siteOrigin(url: string): string {
  const origin = URL.canParse(url) ? new URL(url).origin : '';
  if (!/^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/.test(origin)) {
    throw new Error(`PUBLIC_SITE_URL must be an http(s) address of the site, got "${url}"`);
  }
  return origin;
}

const hostHeader = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The origin written into pages (canonical, og:url, og:image, JSON-LD), robots.txt and the sitemap: the configured
 * one, or on a developer's machine a Host header from the allowed list. Never a header as it came.
 */
export function siteOrigins({ siteUrl, siteHosts }: { siteUrl?: string; siteHosts?: string[] }) {
  const configuredOrigin = siteUrl ? siteOrigin(siteUrl) : undefined;
  const allowedHosts = new Set((siteHosts ?? defaultSiteHosts).map((host) => host.toLowerCase()));
  const originOf = (request: FastifyRequest): string | undefined => {
    if (configuredOrigin) return configuredOrigin;
    const host = (request.headers.host ?? '').toLowerCase();
    const name = hostHeader.exec(host)?.[1];
    if (!name || !allowedHosts.has(name)) return undefined;
    return `${request.protocol === 'https' ? 'https' : 'http'}://${host}`;
  };
  /** Sends what `write` makes with the site's origin, or 421 when the Host header names no site served here. */
  const withOrigin =
    (write: (origin: string, request: FastifyRequest, reply: FastifyReply) => unknown) =>
    (request: FastifyRequest, reply: FastifyReply) => {
      const origin = originOf(request);
      // What the answer says depends on the Host header only when no public address is configured.
      if (!configuredOrigin) reply.header('Vary', 'Host');
      if (origin) return write(escapeHtml(origin), request, reply);
      return reply
        .code(421)
        .type('text/plain; charset=utf-8')
        .send('This server does not answer for that host name. Set PUBLIC_SITE_URL, or list the host in SITE_HOSTS.');
    };
  return { withOrigin };
}

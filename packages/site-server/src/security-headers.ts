import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchRoute } from '@gift/content';
import { earlyScriptSource, startScriptSource } from './early-script.ts';

/**
 * Helmet settings for every response. Scripts only from this origin and the configured remote origins, and
 * inline only the page's early script, by its hash; inline style attributes stay allowed because the carousels position slides with them.
 */
export function helmetOptions(remoteOrigins: string[]): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", earlyScriptSource, startScriptSource, ...remoteOrigins],
        styleSrc: ["'self'", "'unsafe-inline'", ...remoteOrigins],
        imgSrc: ["'self'", 'data:', ...remoteOrigins],
        fontSrc: ["'self'"],
        connectSrc: ["'self'", ...remoteOrigins],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // Sent only over HTTPS (below): over plain HTTP the header means nothing and breaks local use.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginEmbedderPolicy: false,
    // Remotes may be served from another origin (a CDN); they must be loadable from here.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  };
}

/** Geolocation only for the share-location screen; the rest of the site asks for no powerful feature. */
export function permissionsPolicy(pathname: string): string {
  const geolocation = matchRoute(pathname)?.route.remote === 'share_location' ? '(self)' : '()';
  return `geolocation=${geolocation}, camera=(), microphone=(), payment=(), usb=(), interest-cohort=()`;
}

export function addTransportHeaders(request: FastifyRequest, reply: FastifyReply) {
  reply.header('Permissions-Policy', permissionsPolicy(request.url.split('?')[0] ?? '/'));
  if (request.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
}

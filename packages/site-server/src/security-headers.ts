import type { HelmetOptions } from 'helmet';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchRoute } from '@gift/content';
import { earlyScriptSource, startScriptSource } from './early-script.ts';

/**
 * Helmet settings for every response. Scripts only from this origin and the configured remote origins, and
 * inline only the page's early script, by its hash; inline style attributes stay allowed because the carousels position slides with them.
 */
export function helmetOptions(remoteOrigins: string[]): HelmetOptions {
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
    // Pages and API answers are for this origin only; remote builds say `cross-origin` (remoteAssetHeaders).
    crossOriginResourcePolicy: { policy: 'same-origin' },
    // As `frame-ancestors 'none'` says, for browsers that read only the older header.
    xFrameOptions: { action: 'deny' },
  };
}

/** Geolocation only for the share-location screen; the rest of the site asks for no powerful feature. */
export function permissionsPolicy(pathname: string): string {
  const geolocation = matchRoute(pathname)?.route.remote === 'share_location' ? '(self)' : '()';
  return `geolocation=${geolocation}, camera=(), microphone=(), payment=(), usb=(), interest-cohort=()`;
}

/** Remote builds under `/remotes/` may be loaded by another origin of the deployment (a preview, a CDN's copy). */
export function remoteAssetHeaders(request: FastifyRequest, reply: FastifyReply) {
  if (request.url.startsWith('/remotes/')) reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
}

export function addTransportHeaders(request: FastifyRequest, reply: FastifyReply) {
  reply.header('Permissions-Policy', permissionsPolicy(request.url.split('?')[0] ?? '/'));
  if (request.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
}

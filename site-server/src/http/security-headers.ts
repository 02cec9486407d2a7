// http/: what every answer carries and who may ask: security headers, the site's origin and host rules, health.
import { constants as zlib } from 'node:zlib';
import type { FastifyCompressOptions } from '@fastify/compress';
import { compile } from '@fastify/proxy-addr';
import helmet, { type HelmetOptions } from 'helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { matchRoute } from '@gift/content';
import { earlyScriptSource, startScriptSource } from '../pages/early-script.ts';

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

/** The Content-Security-Policy a page is sent with, as Helmet writes it (a page adds its import map's hash to it). */
export function documentPolicy(remoteOrigins: string[]): string {
  let policy = '';
  const response = {
    setHeader: (name: string, value: string) => {
      if (name.toLowerCase() === 'content-security-policy') policy = value;
    },
    removeHeader: () => undefined,
  };
  helmet(helmetOptions(remoteOrigins))({} as never, response as never, () => undefined);
  return policy;
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

/**
 * Whether the request reached the site over HTTPS: its own TLS, or a proxy this server trusts (TRUST_PROXY: its
 * address, or the hop in front when a count is set) that says so in X-Forwarded-Proto. Fastify's `request.protocol`
 * believes that header from any client once any proxy is trusted; a client's own claim must not turn on HSTS.
 */
export function reachedOverHttps(trustProxy: false | number | string) {
  const trusted =
    typeof trustProxy === 'number'
      ? (_address: string, hop: number) => hop < trustProxy
      : trustProxy
        ? compile(trustProxy.split(',').map((address) => address.trim()))
        : () => false;
  return (request: FastifyRequest) => {
    if ((request.raw.socket as { encrypted?: boolean }).encrypted) return true;
    const forwarded = request.headers['x-forwarded-proto'];
    const said = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').at(-1)?.trim();
    return said === 'https' && trusted(request.raw.socket.remoteAddress ?? '', 0);
  };
}

export function addTransportHeaders(request: FastifyRequest, reply: FastifyReply, overHttps: boolean) {
  reply.header('Permissions-Policy', permissionsPolicy(request.url.split('?')[0] ?? '/'));
  if (overHttps) reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
}

/**
 * A file that a page loads and no browser shows as a document of its own: a script, a stylesheet, a font, a raster
 * image, a source map (SVG can be one, and keeps a document's headers). A guess from the path, made before the answer
 * exists; what is sent decides in the end (an HTML answer always carries a document's headers).
 */
const isSubresource = (path: string) => /\.(m?js|css|woff2?|png|jpe?g|webp|avif|gif|ico|map)$/.test(path);

const isHtml = (reply: FastifyReply) => /^text\/html/i.test(String(reply.getHeader('content-type') ?? ''));

/**
 * What a subresource carries of the security headers: the rest (the CSP, framing, referrer, permissions, the
 * cross-origin opener) govern a document and mean nothing on a script or a font, and they cost 0.7 KiB on each of
 * the twenty files a page loads over HTTP/1.1 before it is interactive (about 70 ms of a phone's line on `/`).
 */
const subresourceHelmet: HelmetOptions = {
  contentSecurityPolicy: false,
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: { policy: 'same-origin' },
  originAgentCluster: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xContentTypeOptions: true,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

/**
 * Every answer's security and transport headers: Helmet's middleware, made once (@fastify/helmet makes it again for
 * every request, parsing the CSP each time, which cost a tenth of a page's answer time here), then the headers that
 * depend on the request, and its id. Subresources carry only theirs (above).
 */
export function addSecurityHeaders(
  app: FastifyInstance,
  remoteOrigins: string[],
  trustProxy: false | number | string = false,
) {
  const documentHeaders = helmet(helmetOptions(remoteOrigins));
  const subresourceHeaders = helmet(subresourceHelmet);
  const overHttps = reachedOverHttps(trustProxy);
  app.addHook('onRequest', (request, reply, done) =>
    (isSubresource(pathOf(request)) ? subresourceHeaders : documentHeaders)(request.raw, reply.raw, (error?: unknown) =>
      done(error as Error | undefined),
    ),
  );
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isSubresource(pathOf(request))) {
      // A page (the not-found page, say) at an address that looked like a file's: a document's headers after all.
      if (isHtml(reply)) {
        documentHeaders(request.raw, reply.raw, () => undefined);
        addTransportHeaders(request, reply, overHttps(request));
      }
    } else addTransportHeaders(request, reply, overHttps(request));
    remoteAssetHeaders(request, reply);
    reply.header('X-Request-Id', request.id);
    done(null, payload);
  });
}

const pathOf = (request: FastifyRequest) => request.url.split('?')[0]!;

/** Compression of the answers not already compressed (pages kept in memory and built files carry their own). */
export const answerCompression: FastifyCompressOptions = {
  global: true,
  // Answers only: a request's compressed body is refused by the API (415), never inflated.
  globalDecompression: false,
  threshold: 1024,
  // What pages.ts keeps compressed offers these two; the rest is compressed here per answer, with the same choice.
  encodings: ['br', 'gzip'],
  brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } },
};

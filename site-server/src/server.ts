import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyServerOptions,
  type RouteHandlerMethod,
} from 'fastify';
import { pageRoutes } from '@gift/content';
import { apiPrefix } from '@gift/contracts';
import { manifestPath, type RemotesManifest } from '@gift/federation';
import {
  apiPlugin,
  countRequests,
  createMetrics,
  databaseHealth,
  databaseName,
  formOutcomeCookies,
  httpServerOptions,
  logEachRequest,
  serveMetrics,
  trustedHops,
  viewTickets,
  type ApiConfig,
  type Db,
} from 'api';
import { serveBuilds, type ReleasesSource } from './remotes/builds.ts';
import { pageSender } from './pages/pages.ts';
import { serveViewTickets } from './pages/view-tickets.ts';
import { serverErrorPage } from './pages/plain-page.ts';
import { registerOverrides, withOverrides, type SiteRole } from './previews/overrides.ts';
import { registerPreviews, withPreviews } from './previews/preview.ts';
import { addSecurityHeaders, answerCompression } from './http/security-headers.ts';
import { serveSeoFiles } from './pages/seo-files.ts';
import { siteOrigins } from './http/site-origin.ts';
import { serveHealth } from './http/health.ts';
import { knownVersions } from './remotes/known-versions.ts';
import { cohorts } from './rollouts/cohorts.ts';
import type { Splits } from './ledger/rollouts.ts';
import { ownerOf, siteMetrics } from './metrics/site-metrics.ts';

export interface SiteServerOptions {
  /** Workspace root: the shell's and remotes' `dist` folders are read from here. */
  root: string;
  /** Serve deployed remote builds from this folder at `/remotes/` instead of the workspace's `dist` folders. */
  remotesDir?: string;
  /** A remotes manifest file, read again whenever it changes, so repointing a remote needs no restart. */
  manifestFile?: string;
  /**
   * Which build of each remote is live, from elsewhere than a file (PostgreSQL's releases, followed with their builds
   * fetched from the CDN): then `remotesDir` holds server builds only and is not served.
   */
  releases?: (log: FastifyBaseLogger) => ReleasesSource;
  logger?: FastifyServerOptions['logger'];
  /** The API service, mounted at `/api` on the same origin. */
  api?: { db: Db; config: ApiConfig; databaseReady?: () => boolean };
  /** X-Forwarded-* hops to believe: a number of proxies in front, or their addresses (see the API's config). */
  trustProxy?: false | number | string;
  /** Origins remotes may be loaded from besides this one (a CDN); the CSP and the shell allow exactly these. */
  remoteOrigins?: string[];
  /** The URL `remotesDir` is published at, when a CDN serves it (`https://cdn.example/remotes/`); `/remotes/` here. */
  remotesBaseUrl?: string;
  /** Longest a client may take to send a whole request; the API's setting when the API is mounted. */
  requestTimeoutMs?: number;
  /** Public origin of the site (canonical URLs, sitemap). Required in production; see `siteHosts` otherwise. */
  siteUrl?: string;
  /**
   * Without `siteUrl` (on a developer's machine): the host names whose Host header may name the site in its pages,
   * with any port. Any other Host is answered 421 on a page, never written into it.
   */
  siteHosts?: string[];
  /**
   * Signs and checks preview links (PREVIEW_SECRET, 32 characters or more). Without it previews are off: no link
   * is honoured and no preview cookie is read.
   */
  previewSecret?: string;
  /**
   * Development and preview servers honour local remote overrides (`pnpm dev:remote`); production ignores and logs
   * them. Production when not given.
   */
  siteRole?: SiteRole;
  /** HEALTH_TOKEN: `Authorization: Bearer <token>` on /healthz shows the versions and reasons beyond this machine. */
  healthToken?: string;
  /** `/metrics` on or off, and METRICS_TOKEN; the API's settings when the API is mounted, on otherwise. */
  metrics?: ApiConfig['metrics'];
}

/** The composed site on one origin: the shell, each remote's build under `/remotes/`, the manifest, the API. */
export async function createSiteServer(options: SiteServerOptions): Promise<FastifyInstance> {
  const limits = { requestTimeoutMs: options.requestTimeoutMs ?? options.api?.config.requestTimeoutMs ?? 10_000 };
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: trustedHops(options.trustProxy ?? false),
    ...httpServerOptions(limits),
  });
  logEachRequest(app);
  const metricsSettings = options.metrics ?? options.api?.config.metrics ?? { enabled: true, token: undefined };
  const metrics = metricsSettings.enabled ? createMetrics() : undefined;
  if (metrics) countRequests(app, metrics, ownerOf);

  await app.register(compress, answerCompression);
  addSecurityHeaders(app, options.remoteOrigins ?? [], options.trustProxy ?? false);

  // The site's own errors (the API answers its own): a 5xx is a page with a reference, never the error's words.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) return reply.code(status).send(error);
    request.log.error({ err: error }, 'request failed');
    return reply
      .code(status)
      .header('Cache-Control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(serverErrorPage(status, request.id));
  });

  // Before the API: its form posts and the pages share the cookie parser (form outcomes, previews).
  await app.register(cookie);
  // The API refuses field data about a version this site does not serve (or has not published lately).
  let readLive: () => Promise<RemotesManifest> = async () => ({});
  let readSplits: () => Splits = () => ({});
  const knownVersion = knownVersions({
    readManifest: () => readLive(),
    readSplits: () => readSplits(),
    remotesDir: options.remotesDir,
  });
  if (options.api) await app.register(apiPlugin, { prefix: apiPrefix, ...options.api, knownVersion, metrics });

  const manifest = await serveBuilds(app, { ...options, releases: options.releases?.(app.log) });
  readLive = manifest.read;
  readSplits = manifest.splits ?? readSplits;
  const readManifest = manifest.read;
  const siteCohorts = cohorts();
  const families =
    metrics &&
    siteMetrics(app, metrics, {
      readManifest,
      readSplits: () => readSplits(),
      status: manifest.status,
      releaseEvents: manifest.releaseEvents,
    });
  if (metrics) serveMetrics(app, metrics, metricsSettings.token);
  serveHealth(app, {
    readManifest,
    status: manifest.status,
    healthToken: options.healthToken,
    database: options.api && {
      name: databaseName(options.api.config),
      health: () => databaseHealth(options.api!.db, options.api!.databaseReady),
    },
  });
  const previews = registerPreviews(app, {
    secret: options.previewSecret,
    remotesDir: options.remotesDir,
    fetchVersion: manifest.fetchVersion,
  });
  const overrides = registerOverrides(app, options.siteRole ?? 'production');
  // The manifest a browser composes pages with: the live one, or with a version it previews (for it alone).
  app.get(manifestPath, async (request, reply) => {
    const grants = previews.grantsOf(request, reply);
    const local = overrides.overridesOf(request, reply);
    // A visitor in a rollout's canary asks again with its cookie: it gets its own cohort's manifest.
    const { manifest: cohort } = siteCohorts.ofRequest(request, await readManifest(), readSplits());
    const manifest = withOverrides(withPreviews(cohort, grants, options.remotesBaseUrl), local);
    reply.header('Cache-Control', grants.length || local.length ? 'private, no-store' : 'no-cache');
    // It differs by cookie (a cohort, a preview, an override): a cache keeps one per cookie, or none.
    reply.header('Vary', 'Cookie');
    return reply.send(manifest);
  });
  const tickets = options.api && viewTickets(options.api.config.cookieSecrets);
  serveViewTickets(app, tickets, async (request, reply) => {
    const { manifest: cohort } = siteCohorts.ofRequest(request, await readManifest(), readSplits());
    return withPreviews(cohort, previews.grantsOf(request, reply), options.remotesBaseUrl);
  });
  const { withOrigin } = siteOrigins(options);
  // A server that follows PostgreSQL listens at once (its /healthz says why it is not ready yet); a page asked for
  // before it first read the releases waits for that read, up to 5 s, rather than being composed with nothing.
  const firstRead = manifest.ready?.();
  let hasRead = !firstRead;
  void firstRead?.then(() => (hasRead = true));
  const afterFirstRead = (handler: RouteHandlerMethod): RouteHandlerMethod =>
    async function (request, reply) {
      if (!hasRead) await Promise.race([firstRead, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      return handler.call(this, request, reply);
    };
  const sendPage = pageSender({
    root: options.root,
    remotesDir: options.remotesDir,
    remotesBaseUrl: options.remotesBaseUrl,
    remoteOrigins: options.remoteOrigins ?? [],
    readManifest,
    readSplits,
    cohorts: siteCohorts,
    previews,
    overrides,
    formOutcomes: options.api && formOutcomeCookies(options.api.config.cookieSecrets),
    tickets,
    log: app.log,
    onPage: families?.page,
  });
  serveSeoFiles(app, withOrigin);

  // Each page's own route, so that its request never reaches the static files' wildcard (a look on disk per request)
  // before falling through to the not-found handler; other spellings (`/PRIVACY`, `/vendor/`) still arrive there.
  for (const path of new Set(['/', ...pageRoutes.map((route) => route.path)])) {
    app.get(
      path,
      // Pages compress themselves (page-forms.ts): kept ones once per build, the rest when they are made.
      { compress: false },
      afterFirstRead(
        withOrigin((origin, request, reply) => sendPage(request.url.split('?')[0] ?? path, origin, request, reply)),
      ),
    );
  }

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !/\.[a-z0-9]+$/i.test(path);
    if (!wantsPage || path.startsWith(`${apiPrefix}/`) || path.startsWith('/remotes/')) {
      return reply.code(404).send({ error: 'Not Found', message: `No resource at ${path}` });
    }
    return afterFirstRead(withOrigin((origin) => sendPage(path, origin, request, reply))).call(app, request, reply);
  });

  return app;
}

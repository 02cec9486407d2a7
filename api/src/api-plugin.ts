import cookie from '@fastify/cookie';
import { Ajv } from 'ajv';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiConfig } from './config.ts';
import type { Db } from './db/database.ts';
import { deletionRequests } from './deletion-requests/repository.ts';
import { deletionRequestRoutes } from './deletion-requests/routes.ts';
import { apiErrorHandler, databaseNotReached } from './http/errors.ts';
import { rateLimitsFor } from './http/guards.ts';
import { formContentType, formOutcomeCookies, isFormPost, parseFormBody } from './http/form-posts.ts';
import { healthRoutes } from './health/routes.ts';
import { textFormats } from '@gift/contracts';
import { startOutboxWorker } from './mail/worker.ts';
import { locationShareRoutes } from './location-shares/routes.ts';
import { apiMetrics } from './metrics/api-metrics.ts';
import { unscraped, type Metrics } from './metrics/metrics.ts';
import { fieldDataIntake } from './field-data/intake.ts';
import { fieldDataRoutes, type KnownVersion } from './field-data/routes.ts';

// No coercion: a number where a string belongs is an error, not a string.
const ajv = new Ajv({ coerceTypes: false, allErrors: false, removeAdditional: false, useDefaults: false });
for (const [name, { pattern }] of Object.entries(textFormats)) ajv.addFormat(name, pattern);

/** The API under `/api`: mounted by the site server, or run on its own by `main.ts`. */
export async function apiPlugin(
  app: FastifyInstance,
  {
    db,
    config,
    knownVersion,
    databaseReady = () => true,
    metrics,
  }: {
    db: Db;
    config: ApiConfig;
    /** False until the database was reached and migrated at start-up: requests that need it answer 503 until then. */
    databaseReady?: () => boolean;
    /** Which versions of each remote the site serves (the site server knows); the release tables' otherwise. */
    knownVersion?: KnownVersion;
    /** The server's metrics, where the API's families are registered; none are served without it. */
    metrics?: Metrics;
  },
) {
  const families = apiMetrics(metrics ?? unscraped(), db, config.fieldDataMaxBytes, databaseReady);
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  app.setErrorHandler(apiErrorHandler);
  // JSON, and the native form posts of the site's pages (before their scripts run, or without them): any other
  // content type is a 415. A form's limit allows for percent-encoding, where one typed character takes 9 bytes.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: config.bodyLimit },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.addContentTypeParser(
    formContentType,
    { parseAs: 'string', bodyLimit: config.bodyLimit * 3 },
    (_request, body, done) => done(null, parseFormBody(body as string)),
  );
  // A link's ping (`<a ping>`): its body says "PING" and nothing else.
  app.addContentTypeParser('text/ping', { parseAs: 'string', bodyLimit: 64 }, (_request, _body, done) =>
    done(null, null),
  );

  // A compressed request body is refused before it is read: no browser sends one (beacons, pings and form posts go as
  // they are), and inflating what anyone sends would cost memory and time for nothing.
  app.addHook('onRequest', async (request, reply) => {
    const encoding = request.headers['content-encoding'];
    if (encoding && encoding.trim().toLowerCase() !== 'identity') {
      return reply.code(415).send({
        error: 'Unsupported Media Type',
        message: 'Compressed request bodies are not accepted: send the body uncompressed.',
      });
    }
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'Not Found', message: `No API route ${request.method} ${request.url}` }),
  );

  const outbox = startOutboxWorker(db, config, app.log, databaseReady, families);
  app.addHook('onClose', async () => outbox.stop());

  healthRoutes(app, { db, databaseReady });
  // Before the database was first reached (and migrated), every route that needs it answers as it does while the
  // database is away (the route's own error handler), before any of the route's own hooks asks the database (the
  // rate limits count in it): at once, but for a native form, which waits for its body so that its page comes back
  // with what was typed (its limit is counted after, in preValidation).
  const notReached = (request: FastifyRequest) => !databaseReady() && !request.url.startsWith(`${app.prefix}/health`);
  app.addHook('onRequest', async (request) => {
    if (notReached(request) && !isFormPost(request)) throw databaseNotReached();
  });
  app.addHook('preValidation', async (request) => {
    if (notReached(request)) throw databaseNotReached();
  });
  // The form-outcome cookies are read and set through @fastify/cookie: the host's (the site server registers it for
  // its pages too), or the API's own when it runs alone.
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  const limits = rateLimitsFor(db);
  const outcomes = formOutcomeCookies(config.cookieSecrets);
  const intake = fieldDataIntake(db, config, families.fieldData);
  const recordGoal = intake.goal;
  deletionRequestRoutes(app, {
    requests: deletionRequests(db, {
      siteUrl: config.siteUrl,
      confirmationTtlHours: config.confirmationTtlHours,
      webhooks: Boolean(config.webhookUrl),
    }),
    config,
    limits,
    outcomes,
    onQueued: outbox.kick,
    metrics: families,
    recordGoal,
  });
  locationShareRoutes(app, { db, config, limits, outcomes });
  fieldDataRoutes(app, { db, config, limits, knownVersion, metrics: families.fieldData, intake });
}

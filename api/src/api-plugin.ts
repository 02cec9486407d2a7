import { Ajv } from 'ajv';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ApiConfig } from './config.ts';
import type { Db } from './db/database.ts';
import { deletionRequests } from './deletion-requests/repository.ts';
import { deletionRequestRoutes } from './deletion-requests/routes.ts';
import { badRequest } from './http/guards.ts';
import { healthRoutes } from './health/routes.ts';
import { startOutboxWorker } from './mail/worker.ts';
import { locationShareRoutes } from './location-shares/routes.ts';

// No coercion: a number where a string belongs is an error, not a string.
const ajv = new Ajv({ coerceTypes: false, allErrors: false, removeAdditional: false, useDefaults: false });

function fieldOf(error: FastifyError): string | null {
  const [first] = error.validation ?? [];
  if (!first) return null;
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  return params.missingProperty ?? params.additionalProperty ?? (first.instancePath.replace(/^\//, '') || null);
}

const messages: Record<string, { status: number; error: string; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    error: 'Unsupported Media Type',
    message: 'Send the request as JSON (Content-Type: application/json).',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: 'Payload Too Large', message: 'The request body is too large.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, error: 'Bad Request', message: 'The request body is empty.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, error: 'Bad Request', message: 'The request body is not valid JSON.' },
};

/** The API under `/api`: mounted by the site server, or run on its own by `main.ts`. */
export async function apiPlugin(app: FastifyInstance, { db, config }: { db: Db; config: ApiConfig }) {
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  // JSON only: without the text/plain parser any other content type is a 415.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      const field = fieldOf(error);
      const message =
        error.validation[0]?.keyword === 'additionalProperties'
          ? `Unknown field: ${field}.`
          : `Invalid ${field ?? 'request body'}: ${error.message}`;
      return badRequest(reply, field, message);
    }
    const known = error.code ? messages[error.code] : undefined;
    if (known) return reply.code(known.status).send({ error: known.error, message: known.message });
    const status = error.statusCode ?? 500;
    if (status < 500) return reply.code(status).send({ error: 'Bad Request', message: error.message });
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'Internal Server Error', message: 'Something went wrong on our side.' });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'Not Found', message: `No API route ${request.method} ${request.url}` }),
  );

  const outbox = startOutboxWorker(db, config, app.log);
  app.addHook('onClose', async () => outbox.stop());

  healthRoutes(app, { db });
  deletionRequestRoutes(app, {
    requests: deletionRequests(db, { siteUrl: config.siteUrl, confirmationTtlHours: config.confirmationTtlHours }),
    config,
    onQueued: outbox.kick,
  });
  locationShareRoutes(app, { db, config });
}

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { tryAgainShortly, type FormOutcome } from '@gift/content';
import { isFormPost, type FormOutcomeCookies } from './form-posts.ts';
import { postGuard, tooManyRequestsMessage, type rateLimit } from './guards.ts';
import { textFormats, type TextFormat } from '@gift/contracts';
import { isDatabaseAway, sawDatabaseFault } from '../db/faults.ts';

function fieldOf(error: FastifyError): string | null {
  const [first] = error.validation ?? [];
  if (!first) return null;
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  return params.missingProperty ?? params.additionalProperty ?? (first.instancePath.replace(/^\//, '') || null);
}

const known: Record<string, { status: number; error: string; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    error: 'Unsupported Media Type',
    message: 'Send the request as JSON (Content-Type: application/json).',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: 'Payload Too Large', message: 'The request body is too large.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, error: 'Bad Request', message: 'The request body is empty.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, error: 'Bad Request', message: 'The request body is not valid JSON.' },
};

/** What the client did wrong, as the API answers it; undefined for a failure on our side. */
export function clientError(
  error: FastifyError,
): { status: number; error: string; field?: string | null; message: string } | undefined {
  if (error.validation) {
    const field = fieldOf(error);
    const [first] = error.validation;
    const format =
      first?.keyword === 'format' ? textFormats[(first.params as { format: TextFormat }).format] : undefined;
    const message =
      first?.keyword === 'additionalProperties'
        ? `Unknown field: ${field}.`
        : format
          ? `Invalid ${field}: it ${format.message}.`
          : `Invalid ${field ?? 'request body'}: ${error.message}`;
    return { status: 400, error: 'Bad Request', field, message };
  }
  const found = error.code ? known[error.code] : undefined;
  if (found) return found;
  const status = error.statusCode ?? 500;
  return status < 500 ? { status, error: 'Bad Request', message: error.message } : undefined;
}

export { isDatabaseAway } from '../db/faults.ts';

/** The error of a request that needs the database before it was first reached: PostgreSQL's "cannot connect now". */
export const databaseNotReached = () =>
  Object.assign(new Error('the database has not been reached since this server started'), { code: '57P03' });

/** Seconds a client is asked to wait before trying again while the database is away. */
export const databaseRetryAfterSeconds = 5;

export const databaseAwayMessage = tryAgainShortly;

/**
 * Every error of the API: a clear 4xx for what the client did, 503 with Retry-After while the database is away, a
 * logged 500 for the rest that says nothing of it but the request's id, which the log line carries too.
 */
export function apiErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const refused = clientError(error);
  if (refused) {
    const { status, ...body } = refused;
    return reply.code(status).send(body);
  }
  if (isDatabaseAway(error)) {
    sawDatabaseFault(error);
    request.log.warn({ why: error.message }, 'the database is away: answered 503');
    return reply
      .code(503)
      .header('Retry-After', String(databaseRetryAfterSeconds))
      .send({ error: 'Service Unavailable', message: databaseAwayMessage, requestId: request.id });
  }
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send({ error: 'Internal Server Error', requestId: request.id });
}

/** Where a refused native form post is answered, and with what: its page, the message and what was typed. */
export type RefusedOnPage = (request: FastifyRequest, message: string) => { page: string; outcome: FormOutcome };

/**
 * A route's error handler that answers a refused native form post on the form's page (Post/Redirect/Get) with the
 * API's message and what was typed. Everything else as `apiErrorHandler`.
 */
export function formAwareErrors(outcomes: FormOutcomeCookies, refusedOnPage: RefusedOnPage) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const away = isDatabaseAway(error);
    if (away) sawDatabaseFault(error);
    const refused = clientError(error)?.message ?? (away ? databaseAwayMessage : undefined);
    if (refused && isFormPost(request)) {
      const { page, outcome } = refusedOnPage(request, refused);
      return outcomes.redirect(request, reply, page, outcome);
    }
    return apiErrorHandler(error, request, reply);
  };
}

/**
 * A route's preValidation hook that counts a native form post against its client address once its fields are read
 * (postGuard leaves it out), whatever their shape, so that a refusal can give them back on the page.
 */
export function limitFormPosts(
  limiter: Pick<ReturnType<typeof rateLimit>, 'consumeClient'>,
  outcomes: FormOutcomeCookies,
  refusedOnPage: RefusedOnPage,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isFormPost(request)) return;
    const retryAfter = await limiter.consumeClient(request);
    if (retryAfter === undefined) return;
    const { page, outcome } = refusedOnPage(request, tooManyRequestsMessage(retryAfter));
    await outcomes.redirect(request, reply, page, outcome);
  };
}

/**
 * The guards of a form that a page sends from its script (JSON) or natively: its schema, cross-site posts and too many
 * requests refused before the body is read, a native post counted once its fields are read (so that they can be given
 * back), and every refusal of a native post answered on its page (`formPage` for a cross-site one).
 */
export function formPostOptions<Schema>(
  schema: Schema,
  formPage: string,
  {
    config,
    perIp,
    outcomes,
    refusedOnPage,
  }: {
    config: { allowedOrigins: string[] };
    perIp: ReturnType<typeof rateLimit>;
    outcomes: FormOutcomeCookies;
    refusedOnPage: RefusedOnPage;
  },
) {
  return {
    schema: { body: schema },
    onRequest: postGuard({ allowedOrigins: config.allowedOrigins, perIp, formPage, formPostsCountedLater: true }),
    preValidation: limitFormPosts(perIp, outcomes, refusedOnPage),
    errorHandler: formAwareErrors(outcomes, refusedOnPage),
  };
}

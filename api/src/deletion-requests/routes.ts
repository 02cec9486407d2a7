import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RecordGoal } from '../field-data/intake.ts';
import { paths, routeAt, type DeletionFormOutcome, type DeletionFormValues } from '@gift/content';
import {
  apiPaths,
  apiRoute,
  confirmationTokenSchema,
  deletionRequestLimits,
  deletionRequestSchema,
  linkProblems,
  type ConfirmationDetails,
  type ConfirmationTokenBody,
  type DeletionRequestAccepted,
  type DeletionRequestBody,
} from '@gift/contracts';
import type { ApiConfig } from '../config.ts';
import { formPostOptions, type RefusedOnPage } from '../http/errors.ts';
import { isFormPost, typedText, type FormOutcomeCookies } from '../http/form-posts.ts';
import { badRequest, postGuard, tooManyRequests, tooManyRequestsMessage, type RateLimits } from '../http/guards.ts';
import { emailFingerprinter, isValidEmail, mailboxKey, normalizeEmail } from './email.ts';
import type { DeletionRequests } from './repository.ts';
import { isDatabaseAway } from '../db/faults.ts';
import { outcomeOfStatus, type ApiMetrics, type DeletionOutcome } from '../metrics/api-metrics.ts';

type Body = DeletionRequestBody;

/** What a native post of the form typed, to give back on its page; the body may be unread or of the wrong shape. */
const typedValues = (body: unknown): DeletionFormValues => {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return {
    name: typedText(fields.name, deletionRequestLimits.name),
    email: typedText(fields.email, deletionRequestLimits.email),
    reason: typedText(fields.reason, deletionRequestLimits.reason),
  };
};

const refusedOnPage: RefusedOnPage = (request, message) => ({
  page: paths.deleteAccount,
  outcome: { form: 'delete-account', outcome: 'refused', message, values: typedValues(request.body) },
});

/** a***@example.com: enough for the owner to recognise, nothing more for anyone else. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
}

/** The page whose goal a request accepted is. */
const deleteAccountRoute = routeAt(paths.deleteAccount)!;

export function deletionRequestRoutes(
  app: FastifyInstance,
  {
    requests,
    config,
    limits,
    outcomes,
    onQueued = () => {},
    metrics,
    recordGoal,
  }: {
    requests: DeletionRequests;
    /** Records the page's goal (a request accepted) for the view the account page's ticket vouches for. */
    recordGoal?: RecordGoal;
    /** Counts each request and how it ended. */
    metrics?: ApiMetrics;
    config: ApiConfig;
    limits: RateLimits;
    outcomes: FormOutcomeCookies;
    onQueued?: () => void;
  },
) {
  // How each request ended, as its handler said; otherwise its answer's status says (a schema, a limit, the database).
  const ended = new WeakMap<FastifyRequest, DeletionOutcome>();
  const counted = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    metrics?.deletionRequest(isFormPost(request) ? 'form' : 'json');
    const status = reply.statusCode;
    // A native form refused before its handler is sent back to its page (303), as an accepted one is: not accepted.
    metrics?.deletionOutcome(ended.get(request) ?? (status < 400 ? 'refused' : outcomeOfStatus(status)));
    done();
  };
  const { rateLimit: limit } = config;
  const perIp = limits('deletion-ip', limit.perIpPoints, limit.perIpWindowSeconds);
  const perEmail = limits('deletion-email', limit.perEmailPoints, limit.perEmailWindowSeconds);
  // Opening and confirming a link count apart from submits, and more generously: an owner behind the same office or
  // mobile-carrier address as twenty submitters still confirms. A link's 32 random bytes need no tight limit.
  const perIpLinks = limits('confirmation-ip', limit.perIpPoints * 5, limit.perIpWindowSeconds);
  const fingerprint = emailFingerprinter(config.logHashSecret);
  const answerForm = (request: FastifyRequest, reply: FastifyReply, outcome: DeletionFormOutcome) =>
    outcomes.redirect(request, reply, paths.deleteAccount, outcome);

  /**
   * One request, from the page's script (JSON, answered with JSON) or from the page's form posted natively
   * (answered on the page, Post/Redirect/Get): the same schema, rules, limits and storage for both.
   */
  app.post<{ Body: Body }>(
    apiRoute(apiPaths.deleteAccount),
    {
      ...formPostOptions(deletionRequestSchema, paths.deleteAccount, { config, perIp, outcomes, refusedOnPage }),
      onResponse: counted,
    },
    async (request, reply) => {
      const form = isFormPost(request);
      const values = typedValues(request.body);
      const refuse = (field: string, message: string, outcome: 'missing-fields' | 'refused' = 'refused') => {
        ended.set(request, outcome === 'missing-fields' ? 'missing_fields' : 'invalid');
        return form
          ? answerForm(request, reply, { form: 'delete-account', outcome, message, values })
          : badRequest(reply, field, message);
      };
      const name = values.name.trim();
      const email = normalizeEmail(values.email);
      const reason = values.reason.trim();
      if (!email) return refuse('email', 'Enter your email address.', 'missing-fields');
      if (!isValidEmail(email)) return refuse('email', 'Enter a valid email address.');
      if (!reason) return refuse('reason', 'Tell us why you are deleting your account.', 'missing-fields');
      const retryAfter = await perEmail.consume(mailboxKey(email));
      if (retryAfter !== undefined) {
        ended.set(request, 'rate_limited');
        return form ? refuse('email', tooManyRequestsMessage(retryAfter)) : tooManyRequests(reply, retryAfter);
      }

      try {
        const { reference, created, emailed } = await requests.submit({ name, email, reason });
        request.log.info({ reference, created, emailed, email: fingerprint(email) }, 'deletion request accepted');
      } catch (error) {
        if (!form) throw error;
        ended.set(request, isDatabaseAway(error as Error) ? 'unavailable' : 'failed');
        request.log.error({ err: error }, 'a deletion request from the form could not be stored');
        return answerForm(request, reply, { form: 'delete-account', outcome: 'failed', values });
      }
      onQueued();
      ended.set(request, 'accepted');
      // The request is stored: field data is for the experiments, and its failure is only logged.
      await recordGoal?.(request, deleteAccountRoute, 'deletion-request').catch((error: Error) =>
        request.log.warn({ err: error }, 'the deletion request page goal could not be recorded'),
      );
      // The same answer whether the address is new, has a request open already, or has no account: no reference
      // either (the email carries it), which would tell a stranger that two requests are the same one.
      if (form) return answerForm(request, reply, { form: 'delete-account', outcome: 'submitted' });
      return reply.code(202).send({ status: 'received' } satisfies DeletionRequestAccepted);
    },
  );

  /** A confirmation link's token, looked up or used: `status` is what the request is once `act` has run. */
  const tokenRoute = (
    path: string,
    act: (token: string) => ReturnType<DeletionRequests['lookup']>,
    { status, logged }: { status: ConfirmationDetails['status']; logged: string },
  ) =>
    app.post<{ Body: ConfirmationTokenBody }>(
      path,
      {
        bodyLimit: 1024,
        schema: { body: confirmationTokenSchema },
        onRequest: postGuard({
          allowedOrigins: config.allowedOrigins,
          perIp: perIpLinks,
          formPage: paths.deleteAccount,
        }),
      },
      async (request, reply) => {
        const result = await act(request.body.token);
        if (result.outcome !== 'valid') {
          const problem = linkProblems[result.outcome];
          return reply.code(problem.status).send({ error: result.outcome, message: problem.message });
        }
        request.log.info({ reference: result.reference }, logged);
        const details: ConfirmationDetails = {
          reference: result.reference,
          email: maskEmail(result.email),
          receivedAt: result.receivedAt,
          status,
        };
        return reply.send(details);
      },
    );

  // Both are POSTs: a mail scanner that opens the link (a GET of the page) can neither confirm nor probe.
  tokenRoute(apiRoute(apiPaths.lookUpConfirmation), (token) => requests.lookup(token), {
    status: 'received',
    logged: 'confirmation link looked up',
  });
  tokenRoute(apiRoute(apiPaths.confirm), (token) => requests.confirm(token), {
    status: 'verified',
    logged: 'deletion request verified',
  });
}

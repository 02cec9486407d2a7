import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from '../config.ts';
import { badRequest, postGuard, rateLimit } from '../http/guards.ts';
import { emailFingerprint, isValidEmail, maxEmailLength, normalizeEmail } from './email.ts';
import type { DeletionRequests } from './repository.ts';

export const limits = { name: 200, email: maxEmailLength, reason: 2000 } as const;

const bodySchema = {
  type: 'object',
  required: ['name', 'email', 'reason'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: limits.name },
    email: { type: 'string', maxLength: limits.email },
    reason: { type: 'string', maxLength: limits.reason },
  },
} as const;

interface Body {
  name: string;
  email: string;
  reason: string;
}

const tokenSchema = {
  type: 'object',
  required: ['token'],
  additionalProperties: false,
  properties: { token: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
} as const;

const tokenProblems = {
  unknown: { status: 404, message: 'This confirmation link is not valid.' },
  expired: { status: 410, message: 'This confirmation link has expired.' },
  used: { status: 409, message: 'This confirmation link has already been used.' },
} as const;

/** a***@example.com: enough for the owner to recognise, nothing more for anyone else. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
}

export function deletionRequestRoutes(
  app: FastifyInstance,
  { requests, config, onQueued = () => {} }: { requests: DeletionRequests; config: ApiConfig; onQueued?: () => void },
) {
  const { rateLimit: limit } = config;
  const perIp = rateLimit('deletion-ip', limit.perIpPoints, limit.perIpWindowSeconds);
  const perEmail = rateLimit('deletion-email', limit.perEmailPoints, limit.perEmailWindowSeconds);

  app.post<{ Body: Body }>(
    '/delete-account',
    {
      bodyLimit: config.bodyLimit,
      schema: { body: bodySchema },
      onRequest: postGuard({ allowedOrigins: config.allowedOrigins, perIp }),
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      const email = normalizeEmail(request.body.email);
      const reason = request.body.reason.trim();
      if (!email) return badRequest(reply, 'email', 'Enter your email address.');
      if (!isValidEmail(email)) return badRequest(reply, 'email', 'Enter a valid email address.');
      if (!reason) return badRequest(reply, 'reason', 'Tell us why you are deleting your account.');

      if (!(await perEmail(email, reply))) return reply;

      const { reference, created } = await requests.submit({ name, email, reason });
      request.log.info({ reference, created, email: emailFingerprint(email) }, 'deletion request accepted');
      // The same answer whether the request is new, repeated, or for an address we do not know.
      onQueued();
      return reply.code(202).send({ reference, status: 'received' });
    },
  );

  const tokenRoute = (path: string, act: (token: string) => ReturnType<DeletionRequests['lookup']>, verb: string) =>
    app.post<{ Body: { token: string } }>(
      path,
      {
        bodyLimit: 1024,
        schema: { body: tokenSchema },
        onRequest: postGuard({ allowedOrigins: config.allowedOrigins, perIp }),
      },
      async (request, reply) => {
        const result = await act(request.body.token);
        if (result.outcome !== 'valid') {
          const problem = tokenProblems[result.outcome];
          return reply.code(problem.status).send({ error: result.outcome, message: problem.message });
        }
        request.log.info({ reference: result.reference }, verb);
        return reply.send({
          reference: result.reference,
          email: maskEmail(result.email),
          receivedAt: result.receivedAt,
          status: verb === 'deletion request verified' ? 'verified' : 'received',
        });
      },
    );

  // Both are POSTs: a mail scanner that opens the link (a GET of the page) can neither confirm nor probe.
  tokenRoute('/delete-account/confirmation', (token) => requests.lookup(token), 'confirmation link looked up');
  tokenRoute('/delete-account/confirm', (token) => requests.confirm(token), 'deletion request verified');
}

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

export function deletionRequestRoutes(
  app: FastifyInstance,
  { requests, config }: { requests: DeletionRequests; config: ApiConfig },
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
      return reply.code(202).send({ reference, status: 'received' });
    },
  );
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { ApiConfig } from '../config.ts';
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

export function badRequest(reply: FastifyReply, field: string | null, message: string) {
  return reply.code(400).send({ error: 'Bad Request', field, message });
}

function tooManyRequests(reply: FastifyReply, limited: RateLimiterRes) {
  const seconds = Math.max(1, Math.ceil(limited.msBeforeNext / 1000));
  return reply
    .code(429)
    .header('Retry-After', String(seconds))
    .send({ error: 'Too Many Requests', message: `Too many requests. Try again in ${seconds} seconds.` });
}

/** Browsers send Origin on every POST; one that is not the site's own (or configured) is a cross-site post. */
export function isCrossSite(request: FastifyRequest, allowedOrigins: string[]): boolean {
  if (allowedOrigins.includes('*')) return false;
  const origin = request.headers.origin;
  if (!origin) return request.headers['sec-fetch-site'] === 'cross-site';
  if (allowedOrigins.includes(origin)) return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

export function deletionRequestRoutes(
  app: FastifyInstance,
  { requests, config }: { requests: DeletionRequests; config: ApiConfig },
) {
  const perIp = new RateLimiterMemory({
    keyPrefix: 'ip',
    points: config.rateLimit.perIpPoints,
    duration: config.rateLimit.perIpWindowSeconds,
  });
  const perEmail = new RateLimiterMemory({
    keyPrefix: 'email',
    points: config.rateLimit.perEmailPoints,
    duration: config.rateLimit.perEmailWindowSeconds,
  });

  app.post<{ Body: Body }>(
    '/delete-account',
    {
      bodyLimit: config.bodyLimit,
      schema: { body: bodySchema },
      // Cheap refusals come before the body is read.
      onRequest: async (request, reply) => {
        if (isCrossSite(request, config.allowedOrigins)) {
          return reply.code(403).send({ error: 'Forbidden', message: 'Cross-site requests are not accepted.' });
        }
        try {
          await perIp.consume(request.ip);
        } catch (limited) {
          if (limited instanceof RateLimiterRes) return tooManyRequests(reply, limited);
          throw limited;
        }
      },
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      const email = normalizeEmail(request.body.email);
      const reason = request.body.reason.trim();
      if (!email) return badRequest(reply, 'email', 'Enter your email address.');
      if (!isValidEmail(email)) return badRequest(reply, 'email', 'Enter a valid email address.');
      if (!reason) return badRequest(reply, 'reason', 'Tell us why you are deleting your account.');

      try {
        await perEmail.consume(email);
      } catch (limited) {
        if (limited instanceof RateLimiterRes) return tooManyRequests(reply, limited);
        throw limited;
      }

      const { reference, created } = await requests.submit({ name, email, reason });
      request.log.info({ reference, created, email: emailFingerprint(email) }, 'deletion request accepted');
      // The same answer whether the request is new, repeated, or for an address we do not know.
      return reply.code(202).send({ reference, status: 'received' });
    },
  );
}

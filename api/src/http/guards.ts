import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export function badRequest(reply: FastifyReply, field: string | null, message: string) {
  return reply.code(400).send({ error: 'Bad Request', field, message });
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

/** A named limit of `points` requests per `seconds` for one key (a client address, an email, a token). */
export function rateLimit(keyPrefix: string, points: number, seconds: number) {
  const limiter = new RateLimiterMemory({ keyPrefix, points, duration: seconds });
  /** True when the request may go on; otherwise the 429 with Retry-After has been sent. */
  return async (key: string, reply: FastifyReply): Promise<boolean> => {
    try {
      await limiter.consume(key);
      return true;
    } catch (limited) {
      if (!(limited instanceof RateLimiterRes)) throw limited;
      const retryAfter = Math.max(1, Math.ceil(limited.msBeforeNext / 1000));
      await reply
        .code(429)
        .header('Retry-After', String(retryAfter))
        .send({ error: 'Too Many Requests', message: `Too many requests. Try again in ${retryAfter} seconds.` });
      return false;
    }
  };
}

/** Cheap refusals before a body is read: cross-site posts, then too many requests from one address. */
export function postGuard({
  allowedOrigins,
  perIp,
}: {
  allowedOrigins: string[];
  perIp: ReturnType<typeof rateLimit>;
}): onRequestHookHandler {
  return async (request, reply) => {
    if (isCrossSite(request, allowedOrigins)) {
      return reply.code(403).send({ error: 'Forbidden', message: 'Cross-site requests are not accepted.' });
    }
    await perIp(request.ip, reply);
  };
}

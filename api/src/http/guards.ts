import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import ipaddr from 'ipaddr.js';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { postgresPoolOf, type Db } from '../db/database.ts';
import { networkOf } from '../field-data/networks.ts';
import { isFormPost, refusalPage } from './form-posts.ts';

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
    // Scheme and host: http://site.example posting to https://site.example is another origin.
    const { host, protocol } = new URL(origin);
    return host !== request.headers.host || protocol !== `${request.protocol}:`;
  } catch {
    return true;
  }
}

/**
 * What one client is limited as: its IPv4 address, or its IPv6 /64 (one household or one server, which can pick
 * any of the 2^64 addresses in it at will). `request.ip` already follows only the trusted proxy hops.
 */
export function clientKey(request: Pick<FastifyRequest, 'ip'>): string {
  if (!ipaddr.isValid(request.ip)) return request.ip;
  const address = ipaddr.process(request.ip); // an IPv4-mapped IPv6 address is its IPv4 address
  if (address.kind() === 'ipv4') return address.toString();
  const network = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}

/**
 * How many more requests one network (what the release watch calls one: an IPv4 /24, an IPv6 /48) may send than one
 * of its clients: a network holds many households or servers, and one sender holding a /24 or a /48 can pick its
 * addresses at will (256 of them, or 65,536 /64s), so each limit keys the network as well as the client.
 */
export const networkShare = 8;

export const tooManyRequestsMessage = (retryAfter: number) => `Too many requests. Try again in ${retryAfter} seconds.`;

export function tooManyRequests(reply: FastifyReply, retryAfter: number) {
  return reply
    .code(429)
    .header('Retry-After', String(retryAfter))
    .send({ error: 'Too Many Requests', message: tooManyRequestsMessage(retryAfter) });
}

/**
 * A named limit of `points` requests per `seconds` for one key (a client address, an email, a token). Counted in
 * PostgreSQL when `pool` is given, so that every instance on that database counts the same and a restart forgets
 * nothing; in memory otherwise (SQLite: the site is one process).
 */
export function rateLimit(keyPrefix: string, points: number, seconds: number, pool?: pg.Pool) {
  const limiterOf = (options: { keyPrefix: string; points: number; duration: number }) =>
    pool
      ? new RateLimiterPostgres({
          ...options,
          storeClient: pool,
          storeType: 'pool',
          tableName: 'rate_limits',
          tableCreated: true, // by the migrations
          clearExpiredByTimeout: true,
        })
      : new RateLimiterMemory(options);
  const limiter = limiterOf({ keyPrefix, points, duration: seconds });
  const perNetwork = limiterOf({ keyPrefix: `${keyPrefix}-network`, points: points * networkShare, duration: seconds });
  const waitOf = async (counted: Promise<unknown>): Promise<number | undefined> => {
    try {
      await counted;
      return undefined;
    } catch (limited) {
      if (!(limited instanceof RateLimiterRes)) throw limited;
      return Math.max(1, Math.ceil(limited.msBeforeNext / 1000));
    }
  };
  /** Counts one request of `key` (an email, a token); undefined when it may go on, otherwise the seconds to wait. */
  const consume = (key: string) => waitOf(limiter.consume(key));
  /** Counts one request of a client: against its address (`clientKey`) and its network (`networkShare` the points). */
  const consumeClient = async (request: Pick<FastifyRequest, 'ip'>) =>
    (await consume(clientKey(request))) ??
    (await waitOf(perNetwork.consume(networkOf(request.ip) ?? clientKey(request))));
  /** True when the client's request may go on; otherwise the 429 with Retry-After has been sent. */
  const guard = async (request: Pick<FastifyRequest, 'ip'>, reply: FastifyReply): Promise<boolean> => {
    const retryAfter = await consumeClient(request);
    if (retryAfter === undefined) return true;
    await tooManyRequests(reply, retryAfter);
    return false;
  };
  return Object.assign(guard, { consume, consumeClient });
}

/** The limits of one service: where `db` is PostgreSQL, they are kept there. */
export type RateLimits = (keyPrefix: string, points: number, seconds: number) => ReturnType<typeof rateLimit>;
export const rateLimitsFor =
  (db: Db): RateLimits =>
  (keyPrefix, points, seconds) =>
    rateLimit(keyPrefix, points, seconds, postgresPoolOf(db));

const crossSiteMessage = 'Cross-site requests are not accepted.';

/**
 * Cheap refusals before a body is read: cross-site posts, then too many requests from one client (its address and its
 * network), whatever the post's content type. On a form's route (`formPostsCountedLater`), a native form post is
 * counted once its fields are read instead (`limitFormPosts`), so that a refusal can give them back.
 */
export function postGuard({
  allowedOrigins,
  perIp,
  formPage,
  formPostsCountedLater = false,
}: {
  allowedOrigins: string[];
  perIp: ReturnType<typeof rateLimit>;
  /** Where a visitor refused as cross-site can go to send the form from the site itself. */
  formPage: string;
  formPostsCountedLater?: boolean;
}): onRequestHookHandler {
  return async (request, reply) => {
    if (isCrossSite(request, allowedOrigins)) {
      if (!isFormPost(request)) return reply.code(403).send({ error: 'Forbidden', message: crossSiteMessage });
      const page = refusalPage('This form was not sent', `${crossSiteMessage} Please use the form on our site.`, {
        href: formPage,
        label: 'Go to the form',
      });
      return reply.code(403).type('text/html; charset=utf-8').send(page);
    }
    if (!(formPostsCountedLater && isFormPost(request))) await perIp(request, reply);
  };
}

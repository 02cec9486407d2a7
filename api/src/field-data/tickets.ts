import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';
import { apiPrefix } from '@gift/contracts';
import { fieldDataPath } from '@gift/contracts/field-data';

/**
 * View tickets: the site vouches for each page view it serves. With the page goes a short ticket, signed with the
 * cookie secret, naming the remote, its version, the route and the time, in a cookie of that remote's that only the
 * field-data endpoint receives (`rum_<remote>`, Path=/api/rum, HttpOnly; see `ticketPath`). The report of that view brings it back; a
 * valid, unexpired ticket for the report's remote and version lets the view count in a release decision, once (its
 * nonce is the view: a second report with it adds no view). A report without one is still stored for the figures.
 */

/** How long a ticket is good for: a view's first beacon goes when its page is hidden or replaced. */
export const ticketLifetimeSeconds = 3600;

export const ticketCookie = (remote: string) => `rum_${remote}`;

/**
 * Where a remote's ticket goes: the field-data endpoint; for the account pages, whose goal is a form the API accepts
 * (a deletion request), the whole API, so that the form's post (scripted or native) brings the view's ticket as well.
 */
export const ticketPath = (remote: string) => (remote === 'account' ? apiPrefix : fieldDataPath);

export interface TicketFields {
  remote: string;
  version: string;
  route: string;
}

/**
 * A view's ticket as issued: with `assigned` when the visitor was given its id on this view (a new visitor while a
 * rollout or experiment is under way), so that the sample ratio check counts each visitor's assignment once.
 */
export type IssuedFields = TicketFields & { assigned?: boolean };

const sign = (payload: string, secret: string) =>
  createHmac('sha256', secret).update(`view-ticket.${payload}`).digest('base64url').slice(0, 32);

/**
 * A view's nonce: 6 random bytes, base64url. Taken from a pool filled a thousand nonces at a time, as `randomUUID`
 * does: asking the system for 6 bytes per page view cost the site server about 10 µs of each page it served.
 */
const nonceBytes = 6;
const pool = Buffer.alloc(nonceBytes * 1024);
let poolOffset = pool.length;
function nonce() {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += nonceBytes;
  return pool.toString('base64url', poolOffset - nonceBytes, poolOffset);
}

/** Issues and reads tickets with `secrets`: the first signs, every one verifies (two while one replaces the other). */
export function viewTickets(secrets: string[]) {
  const [signing] = secrets;
  if (!signing) throw new Error('View tickets need a secret (COOKIE_SECRET).');
  /**
   * The version and nonce of the view `value` vouches for, when it is a valid ticket of this remote and route (as
   * `read`, the version whichever it names): what a goal reached on a page counts for.
   */
  function viewOf(value: string | undefined, { remote, route }: Omit<TicketFields, 'version'>, now = Date.now()) {
    if (!value || value.length > 600) return undefined;
    const [payload, signature, ...rest] = value.split('.');
    if (!payload || !signature || rest.length) return undefined;
    const given = Buffer.from(signature);
    const valid = secrets.some((secret) => {
      const expected = Buffer.from(sign(payload, secret));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!valid) return undefined;
    let fields: unknown;
    try {
      fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!Array.isArray(fields) || fields.length < 5 || fields.length > 6) return undefined;
    const [ticketRemote, version, ticketRoute, issued, nonce, assigned] = fields as unknown[];
    if (ticketRemote !== remote || ticketRoute !== route || typeof version !== 'string') return undefined;
    if (typeof issued !== 'number' || typeof nonce !== 'string' || !/^[\w-]{8}$/.test(nonce)) return undefined;
    const age = now / 1000 - issued;
    if (age < -60 || age > ticketLifetimeSeconds) return undefined;
    return { version, nonce, assigned: assigned === 1 };
  }

  return {
    /** A new ticket for a view of `fields` at `now`, as the cookie that carries it. */
    issue(fields: IssuedFields, { now = Date.now(), secure = false } = {}) {
      const payload = Buffer.from(
        JSON.stringify([
          fields.remote,
          fields.version,
          fields.route,
          Math.floor(now / 1000),
          nonce(),
          ...(fields.assigned ? [1] : []),
        ]),
      ).toString('base64url');
      return {
        name: ticketCookie(fields.remote),
        value: `${payload}.${sign(payload, signing)}`,
        options: {
          path: ticketPath(fields.remote),
          httpOnly: true,
          sameSite: 'strict' as const,
          secure,
          maxAge: ticketLifetimeSeconds,
        },
      };
    },

    /**
     * The nonce of `value` when it is a ticket these secrets signed, for this remote, version and route, issued within
     * its lifetime (and not in the future); undefined for anything else: forged, expired, another remote, version or
     * route (a ticket of `/` does not count a view of `/test`: the sender does not choose what a version is judged on).
     */
    read(value: string | undefined, fields: TicketFields, now = Date.now()) {
      return this.readView(value, fields, now)?.nonce;
    },

    /** As `read`, with whether the visitor was assigned on the view (`IssuedFields`). */
    readView(value: string | undefined, { remote, version, route }: TicketFields, now = Date.now()) {
      const view = viewOf(value, { remote, route }, now);
      return view?.version === version ? { nonce: view.nonce, assigned: view.assigned } : undefined;
    },

    /** See `viewOf`. */
    view: viewOf,
  };
}

export type ViewTickets = ReturnType<typeof viewTickets>;

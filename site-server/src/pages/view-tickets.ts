import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ViewTickets } from 'api';
import { matchRoute, type PageRoute } from '@gift/content';
import { viewTicketPath, viewTicketTiming } from '@gift/contracts/field-data';
import { remotes, type RemotesManifest } from '@gift/federation';
import { liveVersionsOf } from '../ledger/versions.ts';
import { assignedOnThisPage, isCrawler } from '../rollouts/cohorts.ts';

/**
 * The view's ticket, beside the page (which stays the same bytes for everyone): the site vouches that it served this
 * view of this remote's version, as the visitor's own manifest names it (their cohort, a preview), and the view's
 * field-data report brings it back. In `Server-Timing`, which the page's script reads of its own load and keeps, so
 * that its beacon carries this view's ticket whatever page of the remote loads next; and in a cookie, for what no
 * script sends (a link's ping, a native form post). Nothing when the remote has no version here (not released).
 */
export function vouch(
  tickets: ViewTickets | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  route: PageRoute,
  manifest: RemotesManifest,
) {
  const version = tickets && liveVersionsOf(manifest)[remotes[route.remote].folder];
  if (!tickets || !version) return false;
  const { name, value, options } = tickets.issue(
    { remote: route.remote, version, route: route.path, assigned: assignedOnThisPage(request) },
    { secure: request.protocol === 'https' },
  );
  reply.setCookie(name, value, options);
  reply.header('Server-Timing', `${viewTicketTiming};desc="${value}"`);
  return value;
}

/**
 * `POST /rum-ticket?path=/vendor`: a view reached by a client-side link gets its ticket as a first load does (as the
 * answer's text, beside the cookie), for the
 * route the path is and the version the visitor's manifest names, signed alike; the per-network caps apply when it is
 * counted. Beside the pages (not under /api), so that the server that knows the visitor's cohort answers it.
 */
export function serveViewTickets(
  app: FastifyInstance,
  tickets: ViewTickets | undefined,
  manifestOf: (request: FastifyRequest, reply: FastifyReply) => Promise<RemotesManifest>,
) {
  app.post<{ Querystring: { path?: unknown } }>(viewTicketPath, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const path = typeof request.query.path === 'string' ? request.query.path : '';
    const match = path.length <= 200 ? matchRoute(path) : undefined;
    if (!match) {
      return reply.code(400).send({ error: 'Bad Request', message: 'path must be the address of a page of the site' });
    }
    // The ticket itself as the answer (empty when the remote has no version here, or for a crawler), for the shell
    // to keep.
    const ticket = !isCrawler(request) && vouch(tickets, request, reply, match.route, await manifestOf(request, reply));
    return reply.type('text/plain; charset=utf-8').send(ticket || '');
  });
}

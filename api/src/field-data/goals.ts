import type { FastifyRequest } from 'fastify';
import type { PageRoute } from '@gift/content';
import type { FieldReport, GoalName } from '@gift/contracts/field-data';
import type { Db } from '../db/database.ts';
import { networkHasher } from './networks.ts';
import { fieldData } from './repository.ts';
import { ticketCookie, viewTickets } from './tickets.ts';

/**
 * Records that a view reached its page's goal where the server sees it happen: a link's ping, a form the API accepts.
 * The view is the one the page's ticket vouches for (the cookie of the page's remote, whose path covers the request),
 * with the version the ticket names; nothing without a valid ticket of that page, or for a browser that asks not to be
 * followed (DNT, Global Privacy Control), as the collector does nothing for it.
 */
export function goalRecorder(db: Db, cookieSecrets: string[]) {
  const tickets = viewTickets(cookieSecrets);
  const networks = networkHasher(db);
  const data = fieldData(db);
  return async function recordGoal(request: FastifyRequest, route: PageRoute, goal: GoalName): Promise<boolean> {
    if (request.headers.dnt === '1' || request.headers['sec-gpc'] === '1') return false;
    const view = tickets.view(request.cookies?.[ticketCookie(route.remote)], {
      remote: route.remote,
      route: route.path,
    });
    if (!view) return false;
    const at = new Date();
    const [network, ...earlierNetworks] = await networks.hashes(request.ip, at);
    const report: FieldReport = {
      route: route.path,
      remote: route.remote,
      version: view.version,
      shell: 'server',
      // No script measured the screen: the browser's own hint (a goal's row counts no view, whatever it says).
      viewport: request.headers['sec-ch-ua-mobile'] === '?1' ? 'phone' : 'desktop',
      goal,
      entries: [],
    };
    await data.store({
      ...report,
      network,
      earlierNetworks: earlierNetworks as [string, string],
      ticket: view.nonce,
      weight: 1,
    });
    return true;
  };
}

export type RecordGoal = ReturnType<typeof goalRecorder>;

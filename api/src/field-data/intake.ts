// intake: what becomes of a report the API accepted: its ticket read, its weight under the storage budget, its caps,
// and its rows (storage.ts). Shared by the beacons' route, the links' pings and the forms that reach a goal.
import type { FastifyRequest } from 'fastify';
import type { PageRoute } from '@gift/content';
import type { FieldReport, GoalName } from '@gift/contracts/field-data';
import type { Db } from '../db/database.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';
import { maxErrorMessages, otherErrors } from './figures.ts';
import { networkHasher } from './networks.ts';
import { fieldData } from './repository.ts';
import { groupCommit } from './storage.ts';
import { ticketCookie, viewTickets } from './tickets.ts';

/**
 * Distinct error messages per remote, version and hour, as this instance has stored them: the first
 * `maxErrorMessages` are kept by name, the rest of a report's errors become one "other errors" entry, so that what is
 * stored grows with the real variety of errors, never with what a sender invents.
 */
function errorCap() {
  let hour = '';
  const seen = new Map<string, Set<string>>();
  return (report: FieldReport, at: Date): FieldReport => {
    const now = at.toISOString().slice(0, 13);
    if (now !== hour) {
      seen.clear();
      hour = now;
    }
    const key = `${report.remote}\u0000${report.version}`;
    const messages = seen.get(key) ?? new Set<string>();
    seen.set(key, messages);
    let other = 0;
    const entries = report.entries.filter((entry) => {
      if ('metric' in entry) return true;
      if (messages.has(entry.error) || messages.size < maxErrorMessages) {
        messages.add(entry.error);
        return true;
      }
      other += entry.count;
      return false;
    });
    if (other) entries.push({ error: otherErrors, count: Math.min(other, 1000) });
    return { ...report, entries };
  };
}

/**
 * What each report stands for under the storage budget: 1 while the raw reports take less than `maxBytes`; past it
 * 10 (one report in 10 kept), doubling with every further 5%, at most 10,240.
 */
export function samplingWeight(usedBytes: number, maxBytes: number): number {
  if (usedBytes < maxBytes) return 1;
  return 10 * 2 ** Math.min(10, Math.floor((usedBytes - maxBytes) / (0.05 * maxBytes)));
}

/**
 * The share of FIELD_DATA_MAX_MB reports nobody vouched for (no valid ticket, or a ticket's view already counted) may
 * fill before they are sampled, and the fill past which they are left out altogether: what is left is the views'.
 */
export const unticketedShare = 0.5;
export const unticketedCeiling = 0.9;

/** Unticketed reports one instance stores per remote, version and hour; the rest are answered and left out. */
export const unticketedPerVersionHour = 2_000;

/**
 * The storage budget, measured once a minute from the database's catalog: a report is kept with the weight it stands
 * for, or left out by the sample (so the figures stay right and the disk never fills).
 */
function storageBudget(measure: () => Promise<number>, maxBytes: number, random = Math.random) {
  let used = 0;
  let measuredAt = 0;
  let measuring: Promise<void> | undefined;
  const remeasure = () =>
    (measuring ??= measure()
      .then((bytes) => {
        used = bytes;
      })
      .catch(() => undefined)
      .finally(() => {
        measuredAt = Date.now();
        measuring = undefined;
      }));
  return {
    /**
     * The weight a report is stored with, or 0 when the sample leaves it out: a view the site served (`vouched`) is
     * sampled past the whole budget, anything else from half of it on and left out past `unticketedCeiling`, so that
     * however much of it comes, it never pushes the views out.
     */
    async weightOfNext(vouched: boolean): Promise<number> {
      if (Date.now() - measuredAt > 60_000) await remeasure();
      if (!vouched && used >= unticketedCeiling * maxBytes) return 0;
      const weight = samplingWeight(used, vouched ? maxBytes : unticketedShare * maxBytes);
      return weight === 1 || random() * weight < 1 ? weight : 0;
    },
  };
}

/**
 * Unticketed reports per remote, version and hour, as this instance has stored them: past `limit` of one version in
 * an hour, the rest are left out (a flood of made-up reports fills one version's hour, never the budget).
 */
function unticketedCap(limit: number) {
  let hour = '';
  const counts = new Map<string, number>();
  return (report: FieldReport, at: Date) => {
    const now = at.toISOString().slice(0, 13);
    if (now !== hour) {
      counts.clear();
      hour = now;
    }
    const key = `${report.remote}\u0000${report.version}`;
    const count = counts.get(key) ?? 0;
    if (count >= limit) return false;
    counts.set(key, count + 1);
    return true;
  };
}

/**
 * What the API does with the field data it accepted. A ticket counts toward the budget's share for the views the site
 * served, and toward the views metric, once: with its view's first counting report (or its goal's first report);
 * every other report, replays of a valid ticket included, is what nobody vouched for.
 */
export function fieldDataIntake(
  db: Db,
  { cookieSecrets, fieldDataMaxBytes }: { cookieSecrets: string[]; fieldDataMaxBytes: number },
  metrics?: ApiMetrics['fieldData'],
) {
  const data = fieldData(db);
  const store = groupCommit((reports) => data.storeAll(reports));
  const tickets = viewTickets(cookieSecrets);
  const networks = networkHasher(db);
  const capErrors = errorCap();
  const withinUnticketed = unticketedCap(unticketedPerVersionHour);
  const budget = storageBudget(async () => {
    const bytes = await data.rawBytes();
    metrics?.measured(bytes);
    return bytes;
  }, fieldDataMaxBytes);
  const networksOf = async (address: string, at: Date) => {
    const [network, ...earlierNetworks] = await networks.hashes(address, at);
    return { network, earlierNetworks: earlierNetworks as [string, string] };
  };

  /** A goal of the view `ticket` names reached: its one row, when the budget keeps it. */
  async function reached(
    goal: { remote: string; route: string; version: string; ticket: string; goal: GoalName },
    request: FastifyRequest,
  ): Promise<boolean> {
    if (await data.ticketSeen(goal)) return true;
    if ((await budget.weightOfNext(true)) === 0) {
      metrics?.sampledOut('budget');
      return false;
    }
    // No script measured anything: a goal's row holds the view's ticket and the goal alone.
    await store({
      ...goal,
      shell: 'server',
      viewport: 'phone',
      entries: [],
      ...(await networksOf(request.ip, new Date())),
    });
    return true;
  }

  return {
    /**
     * A beacon's report, its route, remote and version checked: the nonce of the view it is of (the ticket it carries,
     * its page's own whatever loaded after it; else the remote's cookie, for a beacon that left before its page's
     * ticket arrived), its weight, its caps, stored.
     */
    async report(request: FastifyRequest, report: FieldReport, carried: string | undefined) {
      const at = new Date();
      const view =
        (carried && tickets.readView(carried, report)) ||
        tickets.readView(request.cookies?.[ticketCookie(report.remote)], report);
      const ticket = view ? view.nonce : null;
      if (report.goal) {
        // A beacon that says its view reached a goal: the goal's row, as a link's ping would make it.
        if (ticket !== null) await reached({ ...report, ticket, goal: report.goal }, request);
        return;
      }
      const first = ticket !== null && report.view === true && !(await data.ticketSeen({ ...report, ticket }));
      const weight = await budget.weightOfNext(first);
      const raw = weight > 0 && (first || withinUnticketed(report, at));
      if (weight === 0) metrics?.sampledOut('budget');
      else if (!raw) metrics?.sampledOut('unticketed_cap');
      // A view's row is made by its first counting report when the budget keeps it; any other report of a ticket adds
      // to it, which grows nothing (one row a view the site served), sampled or not.
      const toView = ticket !== null && (!first || weight > 0);
      if (!raw && !toView) return;
      await store({
        ...capErrors(report, at),
        ...(await networksOf(request.ip, at)),
        ticket: toView ? ticket : null,
        assigned: toView && view ? view.assigned : false,
        weight: raw ? weight : 0,
      });
      if (first && weight > 0) metrics?.counted(report.remote, report.version);
    },

    /**
     * Records that a view reached its page's goal where the server sees it happen: a link's ping, a form the API
     * accepts. The view is the one the page's ticket vouches for (the cookie of the page's remote, whose path covers
     * the request), with the version the ticket names; one row per view and goal however often it is said, within the
     * budget; nothing without a valid ticket of that page, or for a browser that asks not to be followed (DNT, Global
     * Privacy Control), as the collector does nothing for it.
     */
    async goal(request: FastifyRequest, route: PageRoute, goal: GoalName): Promise<boolean> {
      if (request.headers.dnt === '1' || request.headers['sec-gpc'] === '1') return false;
      const view = tickets.view(request.cookies?.[ticketCookie(route.remote)], {
        remote: route.remote,
        route: route.path,
      });
      if (!view) return false;
      return reached(
        { remote: route.remote, route: route.path, version: view.version, ticket: view.nonce, goal },
        request,
      );
    },
  };
}

export type FieldDataIntake = ReturnType<typeof fieldDataIntake>;
export type RecordGoal = FieldDataIntake['goal'];

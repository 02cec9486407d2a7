import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { matchRoute, pageRoutes, routeGoals } from '@gift/content';
import { apiRoute } from '@gift/contracts';
import {
  fieldDataLimits,
  fieldDataPath,
  goalPingPath,
  notFoundRoute,
  fieldReportSchema,
  type GoalName,
  type FieldReport,
} from '@gift/contracts/field-data';
import type { ApiConfig } from '../config.ts';
import { isPostgresDb, type Db } from '../db/database.ts';
import { badRequest, postGuard, type RateLimits } from '../http/guards.ts';
import { outcomeOfStatus, type ApiMetrics, type FieldDataRefusal } from '../metrics/api-metrics.ts';
import { networkHasher } from './networks.ts';
import { fieldData, fieldDataRetention, groupCommit, maxErrorMessages, otherErrors } from './repository.ts';
import { goalRecorder, type RecordGoal } from './goals.ts';
import { ticketCookie, viewTickets } from './tickets.ts';

/** Whether `version` is a version of `remote` the site serves or has published within the raw reports' retention. */
export type KnownVersion = (remote: string, version: string) => boolean | Promise<boolean>;

/** What the shell's own views report as their version: the watch never judges the shell, and one name bounds them. */
export const shellVersion = 'shell';

/** Which remote owns each route of the route table; the not-found page is the shell's. */
const owners = new Map<string, string>([
  ...pageRoutes.map((route) => [route.path, route.remote] as const),
  [notFoundRoute, 'shell'],
]);

/**
 * The versions the API alone knows, without a site server to ask: with PostgreSQL, the release tables (a version live
 * now or published within the raw retention); on a developer's SQLite, any (there is no ledger to ask).
 */
function releaseTables(db: Db): KnownVersion {
  if (!isPostgresDb(db)) return () => true;
  return async (remote, version) => {
    const since = new Date(Date.now() - fieldDataRetention.rawHours * 3_600_000).toISOString();
    const { rows } = await sql<{ known: number }>`select 1 as known from site_releases
      where remote = ${remote} and version = ${version} and (live or published_at >= ${since}) limit 1`
      .execute(db)
      .catch(() => ({ rows: [] }));
    return rows.length > 0;
  };
}

/** Remembers answers for a minute, so that a flood of one claim asks the ledger once. */
function remembered(known: KnownVersion): KnownVersion {
  const answers = new Map<string, { known: boolean; until: number }>();
  return async (remote, version) => {
    const key = `${remote}\u0000${version}`;
    const now = Date.now();
    const answer = answers.get(key);
    if (answer && answer.until > now) return answer.known;
    const fresh = await known(remote, version);
    if (answers.size > 10_000) answers.clear();
    answers.set(key, { known: fresh, until: now + 60_000 });
    return fresh;
  };
}

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

/** The share of FIELD_DATA_MAX_MB unticketed reports may fill before they are sampled: the rest is the views'. */
export const unticketedShare = 0.5;

/** Unticketed reports one instance stores per remote, version and hour; the rest are answered and left out. */
export const unticketedPerVersionHour = 2_000;

/**
 * The storage budget, measured once a minute from the database's catalog: a report is kept with the weight it stands
 * for, or left out by the sample (so the figures stay right and the disk never fills). Reports without a valid ticket
 * are sampled from half the budget on, those with one only past the whole of it: junk, however much, never samples
 * away the views the site served.
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
    /** The weight a report is stored with, or 0 when the sample leaves it out. */
    async weightOfNext(ticketed: boolean): Promise<number> {
      if (Date.now() - measuredAt > 60_000) await remeasure();
      const weight = samplingWeight(used, ticketed ? maxBytes : unticketedShare * maxBytes);
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
 * `POST /api/rum`: one page view's web vitals and errors, sent by the page with `navigator.sendBeacon`. Checked by its
 * schema (16 KiB, 50 entries), refused from other sites, limited per client address in a bucket of its own (a
 * visitor's pages send one each, beside the forms' limit); a report must name a route of the route table, the remote
 * that owns it and a version of that remote the site knows, or it is answered 400 and stored nowhere. Stored with the
 * client's network (hashed), the view ticket it brought if valid, its errors capped; answered 204, nothing to read.
 */
export function fieldDataRoutes(
  app: FastifyInstance,
  {
    db,
    config,
    limits,
    knownVersion,
    metrics,
    recordGoal = goalRecorder(db, config.cookieSecrets),
  }: {
    db: Db;
    config: ApiConfig;
    /** Records a goal reached where the server sees it (shared with the forms' routes). */
    recordGoal?: RecordGoal;
    limits: RateLimits;
    knownVersion?: KnownVersion;
    /** Counts what arrives, what is refused and why, sampled out, stored, and the views counted. */
    metrics?: ApiMetrics['fieldData'];
  },
) {
  const data = fieldData(db);
  const store = groupCommit((reports) => data.storeAll(reports));
  const perIp = limits('rum-ip', config.fieldDataPerIp, config.rateLimit.perIpWindowSeconds);
  const known = remembered(knownVersion ?? releaseTables(db));
  const tickets = viewTickets(config.cookieSecrets);
  const networks = networkHasher(db);
  const capErrors = errorCap();
  const budget = storageBudget(async () => {
    const bytes = await data.rawBytes();
    metrics?.measured(bytes);
    return bytes;
  }, config.fieldDataMaxBytes);
  // Why a report was refused, when its handler said; otherwise its answer's status says (schema, origin, a limit).
  const refusedFor = new WeakMap<FastifyRequest, FieldDataRefusal>();
  const withinUnticketed = unticketedCap(unticketedPerVersionHour);

  /** Why a report cannot be about what it names, or undefined when it can. */
  async function refusal(report: FieldReport): Promise<[field: string, message: string] | undefined> {
    // A route as the route table writes it (`/share-location/*`), never an address with a link's token in it.
    const owner = owners.get(report.route);
    if (!owner) return ['route', 'route must be a route of the site'];
    if (report.remote !== owner) return ['remote', `remote must be the remote that owns ${report.route}: ${owner}`];
    const goals = routeGoals[report.route] ?? [];
    if (report.goal && !goals.includes(report.goal)) {
      return ['goal', `goal must be a goal of ${report.route}: ${goals.join(', ') || 'it has none'}`];
    }
    if (owner !== 'shell' && !(await known(report.remote, report.version))) {
      return ['version', `version must be a version of ${report.remote} that the site serves`];
    }
    return undefined;
  }

  const networksOf = async (address: string, at: Date) => {
    const [network, ...earlierNetworks] = await networks.hashes(address, at);
    return { network, earlierNetworks: earlierNetworks as [string, string] };
  };

  /**
   * The nonce of the view the report is of: the ticket it carries (its page's own, whatever loaded after it), else the
   * remote's cookie (a beacon that left before its page's ticket arrived); null when neither is valid for it.
   */
  const ticketOf = (request: FastifyRequest, report: FieldReport, carried: string | undefined) =>
    (carried && tickets.read(carried, report)) ||
    (tickets.read(request.cookies?.[ticketCookie(report.remote)], report) ?? null);

  app.post<{ Body: FieldReport }>(
    apiRoute(fieldDataPath),
    {
      bodyLimit: fieldDataLimits.bodyBytes,
      schema: { body: fieldReportSchema },
      onRequest: postGuard({ allowedOrigins: config.allowedOrigins, perIp, formPage: '/' }),
      onResponse: (request, reply, done) => {
        metrics?.received();
        if (reply.statusCode >= 400)
          metrics?.refused(refusedFor.get(request) ?? (outcomeOfStatus(reply.statusCode) as FieldDataRefusal));
        done();
      },
    },
    async (request, reply) => {
      const { ticket: carried, ...body } = request.body;
      const report = body.remote === 'shell' ? { ...body, version: shellVersion } : body;
      const refused = await refusal(report);
      if (refused) {
        refusedFor.set(request, refused[0] as FieldDataRefusal);
        return badRequest(reply, ...refused);
      }
      const at = new Date();
      const ticket = ticketOf(request, report, carried);
      const weight = await budget.weightOfNext(ticket !== null);
      if (weight === 0) metrics?.sampledOut('budget');
      else if (ticket === null && !withinUnticketed(report, at)) metrics?.sampledOut('unticketed_cap');
      else {
        await store({ ...capErrors(report, at), ...(await networksOf(request.ip, at)), ticket, weight });
        if (ticket !== null) metrics?.counted(report.remote, report.version);
      }
      return reply.code(204).send();
    },
  );

  /**
   * `POST /api/rum/goal/<goal>`: a link's ping (`<a ping>`, which the browser sends as it follows the link, before
   * and without any script): the page it came from (`Ping-From`, else `Referer`) reached `goal`. Counted for the view
   * the ticket of that page's remote vouches for (its version the ticket's own), as a beacon with the goal would be;
   * nothing for a visitor whose browser asks not to be followed (DNT, Global Privacy Control), a page without that
   * goal, or a ticket that is not one. Answered 204 whatever it was: a ping's answer is read by no one.
   */
  app.post<{ Params: { goal: string } }>(
    apiRoute(`${goalPingPath}/:goal`),
    {
      bodyLimit: 64,
      onRequest: postGuard({ allowedOrigins: config.allowedOrigins, perIp, formPage: '/' }),
    },
    async (request, reply) => {
      const from = request.headers['ping-from'] ?? request.headers.referer;
      let pathname: string | undefined;
      try {
        pathname = new URL(String(from)).pathname;
      } catch {
        pathname = undefined;
      }
      const route = pathname === undefined ? undefined : matchRoute(pathname)?.route;
      const goal = request.params.goal as GoalName;
      if (!route || !routeGoals[route.path]?.includes(goal)) {
        return badRequest(reply, 'goal', 'goal must be a goal of the page the link is on');
      }
      await recordGoal(request, route, goal);
      return reply.code(204).send();
    },
  );
}

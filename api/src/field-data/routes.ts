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
import { fieldDataIntake, type FieldDataIntake } from './intake.ts';
import { fieldDataRetention } from './repository.ts';

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
    intake = fieldDataIntake(db, config, metrics),
  }: {
    db: Db;
    config: ApiConfig;
    /** What becomes of what is accepted (shared with the forms' routes, which record goals). */
    intake?: FieldDataIntake;
    limits: RateLimits;
    knownVersion?: KnownVersion;
    /** Counts what arrives, what is refused and why, sampled out, stored, and the views counted. */
    metrics?: ApiMetrics['fieldData'];
  },
) {
  const perIp = limits('rum-ip', config.fieldDataPerIp, config.rateLimit.perIpWindowSeconds);
  const known = remembered(knownVersion ?? releaseTables(db));
  // Why a report was refused, when its handler said; otherwise its answer's status says (schema, origin, a limit).
  const refusedFor = new WeakMap<FastifyRequest, FieldDataRefusal>();

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
      await intake.report(request, report, carried);
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
      await intake.goal(request, route, goal);
      return reply.code(204).send();
    },
  );
}

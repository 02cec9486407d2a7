import type { FastifyInstance } from 'fastify';
import { pageRoutes } from '@gift/content';
import { apiRoute } from '@gift/contracts';
import {
  fieldDataLimits,
  fieldDataPath,
  notFoundRoute,
  fieldReportSchema,
  type FieldReport,
} from '@gift/contracts/field-data';
import type { ApiConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import { badRequest, postGuard, type RateLimits } from '../http/guards.ts';
import { fieldData, groupCommit } from './repository.ts';

/**
 * `POST /api/rum`: one page view's web vitals and errors, sent by the page with `navigator.sendBeacon`. Checked by its
 * schema (16 KiB, 50 entries), refused from other sites, limited per client address in a bucket of its own (a
 * visitor's pages send one each, beside the forms' limit); answered 204, with nothing to read.
 */
export function fieldDataRoutes(
  app: FastifyInstance,
  { db, config, limits }: { db: Db; config: ApiConfig; limits: RateLimits },
) {
  const data = fieldData(db);
  const store = groupCommit((reports) => data.storeAll(reports));
  const knownRoutes = new Set([...pageRoutes.map((route) => route.path), notFoundRoute]);
  const perIp = limits('rum-ip', config.fieldDataPerIp, config.rateLimit.perIpWindowSeconds);
  app.post<{ Body: FieldReport }>(
    apiRoute(fieldDataPath),
    {
      bodyLimit: fieldDataLimits.bodyBytes,
      schema: { body: fieldReportSchema },
      onRequest: postGuard({ allowedOrigins: config.allowedOrigins, perIp, formPage: '/' }),
    },
    async (request, reply) => {
      // A route as the route table writes it (`/share-location/*`), never an address with a link's token in it.
      if (!knownRoutes.has(request.body.route)) return badRequest(reply, 'route', 'route must be a route of the site');
      await store(request.body);
      return reply.code(204).send();
    },
  );
}

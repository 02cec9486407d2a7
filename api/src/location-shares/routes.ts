import type { FastifyInstance } from 'fastify';
import type { ApiConfig } from '../config.ts';
import { badRequest, postGuard, rateLimit } from '../http/guards.ts';
import { locationShares, type SharedLocation } from './repository.ts';
import type { Db } from '../db/database.ts';

/** Link tokens are URL-safe random strings made by the sender's app. */
export const tokenPattern = '^[A-Za-z0-9_-]{16,128}$';

const bodySchema = {
  type: 'object',
  required: ['token'],
  additionalProperties: false,
  properties: {
    token: { type: 'string', pattern: tokenPattern },
    position: {
      type: 'object',
      required: ['latitude', 'longitude', 'accuracy'],
      additionalProperties: false,
      properties: {
        latitude: { type: 'number', minimum: -90, maximum: 90 },
        longitude: { type: 'number', minimum: -180, maximum: 180 },
        accuracy: { type: 'number', minimum: 0, maximum: 100_000 },
      },
    },
    address: { type: 'string', maxLength: 500 },
  },
} as const;

interface Body {
  token: string;
  position?: { latitude: number; longitude: number; accuracy: number };
  address?: string;
}

export function locationShareRoutes(app: FastifyInstance, { db, config }: { db: Db; config: ApiConfig }) {
  const shares = locationShares(db);
  const perIp = rateLimit('location-ip', config.rateLimit.perIpPoints, config.rateLimit.perIpWindowSeconds);
  const perToken = rateLimit('location-token', 10, 3600);

  app.post<{ Body: Body }>(
    '/share-location',
    {
      bodyLimit: config.bodyLimit,
      schema: { body: bodySchema },
      onRequest: postGuard({ allowedOrigins: config.allowedOrigins, perIp }),
    },
    async (request, reply) => {
      const { token, position } = request.body;
      const address = request.body.address?.trim();
      if (position && address) return badRequest(reply, 'address', 'Send either a position or an address, not both.');
      if (!position && !address) return badRequest(reply, 'position', 'Send a position or an address.');
      if (address !== undefined && address.length < 5) {
        return badRequest(reply, 'address', 'Enter the full delivery address.');
      }
      if (!(await perToken(token, reply))) return reply;
      const location: SharedLocation = position
        ? { kind: 'position', ...position }
        : { kind: 'address', address: address! };
      await shares.share(token, location);
      request.log.info({ kind: location.kind }, 'location shared');
      return reply.code(202).send({ status: 'received' });
    },
  );
}

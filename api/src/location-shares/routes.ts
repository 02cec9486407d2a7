import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { paths, type ShareLocationOutcome } from '@gift/content';
import {
  addressMaxLength,
  apiPaths,
  apiRoute,
  locationShareSchema,
  shareTokenPattern,
  type LocationShareBody,
} from '@gift/contracts';
import type { ApiConfig } from '../config.ts';
import { formPostOptions, type RefusedOnPage } from '../http/errors.ts';
import { isFormPost, typedText, type FormOutcomeCookies } from '../http/form-posts.ts';
import { badRequest, type RateLimits, tooManyRequests, tooManyRequestsMessage } from '../http/guards.ts';
import { locationShares, type SharedLocation } from './repository.ts';
import type { Db } from '../db/database.ts';

/** The share link's page a native post of the address form comes back to (its token checked first). */
const pageOf = (body: unknown) => {
  const token = typedText((body as { token?: unknown } | undefined)?.token, 128);
  return new RegExp(shareTokenPattern).test(token) ? `${paths.shareLocation}/${token}` : paths.shareLocation;
};

const typedAddress = (body: unknown) =>
  typedText((body as { address?: unknown } | undefined)?.address, addressMaxLength);

const refusedOnPage: RefusedOnPage = (request, message) => ({
  page: pageOf(request.body),
  outcome: { form: 'share-location', outcome: 'refused', message, address: typedAddress(request.body) },
});

type Body = LocationShareBody;

export function locationShareRoutes(
  app: FastifyInstance,
  { db, config, limits, outcomes }: { db: Db; config: ApiConfig; limits: RateLimits; outcomes: FormOutcomeCookies },
) {
  const shares = locationShares(db);
  const answerForm = (request: FastifyRequest, reply: FastifyReply, outcome: ShareLocationOutcome) =>
    outcomes.redirect(request, reply, pageOf(request.body), outcome);
  const perIp = limits('location-ip', config.rateLimit.perIpPoints, config.rateLimit.perIpWindowSeconds);
  const perToken = limits('location-token', 10, 3600);
  // Tokens come from the sender's app and are not known here beforehand: one client may only start so many.
  const newTokensPerClient = limits('location-new-token', config.locationNewTokensPerDay, 86_400);

  /** From the page's script (JSON) or its address form posted natively (answered on the page): one schema. */
  app.post<{ Body: Body }>(
    apiRoute(apiPaths.shareLocation),
    formPostOptions(locationShareSchema, paths.shareLocation, { config, perIp, outcomes, refusedOnPage }),
    async (request, reply) => {
      const form = isFormPost(request);
      const { token, position } = request.body;
      const address = request.body.address?.trim();
      const refuse = (field: string, message: string) =>
        form
          ? answerForm(request, reply, { form: 'share-location', outcome: 'refused', message, address: address ?? '' })
          : badRequest(reply, field, message);
      if (position && address) return refuse('address', 'Send either a position or an address, not both.');
      if (!position && !address) return refuse('position', 'Send a position or an address.');
      if (address !== undefined && address.length < 5) return refuse('address', 'Enter the full delivery address.');
      const retryAfter =
        (await perToken.consume(token)) ??
        ((await shares.exists(token)) ? undefined : await newTokensPerClient.consumeClient(request));
      if (retryAfter !== undefined) {
        return form ? refuse('token', tooManyRequestsMessage(retryAfter)) : tooManyRequests(reply, retryAfter);
      }
      const location: SharedLocation = position
        ? { kind: 'position', ...position }
        : { kind: 'address', address: address! };
      try {
        await shares.share(token, location);
      } catch (error) {
        if (!form) throw error;
        request.log.error({ err: error }, 'a location from the address form could not be stored');
        return answerForm(request, reply, { form: 'share-location', outcome: 'failed', address: address ?? '' });
      }
      request.log.info({ kind: location.kind }, 'location shared');
      if (form)
        return answerForm(request, reply, { form: 'share-location', outcome: 'shared', address: address ?? '' });
      return reply.code(202).send({ status: 'received' });
    },
  );
}

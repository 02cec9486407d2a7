import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FromSchema } from 'json-schema-to-ts';

/**
 * What the platform's back end receives at WEBHOOK_URL when a deletion request changes: one JSON event per change,
 * signed (and when a release is rolled back by itself, below). Server-side only (it uses node:crypto); the browser never sees these.
 */

export const deletionEventTypes = ['received', 'verified', 'in_progress', 'completed', 'rejected', 'extended'] as const;

export const deletionEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'occurredAt', 'request'],
  properties: {
    /** Unique per event and the same on every re-delivery: act on an id once. */
    id: { type: 'string', format: 'uuid' },
    type: { type: 'string', enum: deletionEventTypes },
    occurredAt: { type: 'string', format: 'date-time' },
    request: {
      type: 'object',
      additionalProperties: false,
      required: ['reference', 'email', 'name', 'status', 'deadline'],
      properties: {
        reference: { type: 'string' },
        email: { type: 'string' },
        name: { type: 'string' },
        status: { type: 'string', enum: ['received', 'verified', 'in_progress', 'completed', 'rejected'] },
        /** When the request must be answered by, extensions included. */
        deadline: { type: 'string', format: 'date-time' },
      },
    },
  },
} as const;

export type DeletionEvent = FromSchema<typeof deletionEventSchema>;

/**
 * What WEBHOOK_URL receives when the release watch takes a remote's new version off the site by itself: which
 * remote, the version it took off, the version live again, and why (what the field data showed).
 */
export const releaseEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'occurredAt', 'release'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { type: 'string', enum: ['release.rolled_back'] },
    occurredAt: { type: 'string', format: 'date-time' },
    release: {
      type: 'object',
      additionalProperties: false,
      required: ['remote', 'from', 'to', 'reason'],
      properties: {
        remote: { type: 'string' },
        /** The version taken off. */
        from: { type: 'string' },
        /** The version live again. */
        to: { type: 'string' },
        reason: { type: 'string' },
      },
    },
  },
} as const;

export type ReleaseWebhookEvent = FromSchema<typeof releaseEventSchema>;

/**
 * What WEBHOOK_URL receives when a staged rollout moves by the release watch's decision: it went on to a larger share
 * (`rollout.advanced`), reached everyone (`rollout.completed`), or was taken off (`rollout.aborted`, every visitor back
 * on `current`); with the share it serves now (or served when aborted) and the figures it was judged by.
 */
export const rolloutEventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'occurredAt', 'rollout'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { type: 'string', enum: ['rollout.advanced', 'rollout.completed', 'rollout.aborted'] },
    occurredAt: { type: 'string', format: 'date-time' },
    rollout: {
      type: 'object',
      additionalProperties: false,
      required: ['remote', 'version', 'current', 'share', 'reason'],
      properties: {
        remote: { type: 'string' },
        /** The version rolled out (the canary). */
        version: { type: 'string' },
        /** The version everyone else has. */
        current: { type: 'string' },
        /** Percent of visitors on `version` now; for an abort, the share it had. */
        share: { type: 'integer', minimum: 0, maximum: 100 },
        reason: { type: 'string' },
      },
    },
  },
} as const;

export type RolloutWebhookEvent = FromSchema<typeof rolloutEventSchema>;

/** The header that carries the signature: `t=<unix seconds>,v1=<hex>` (one `v1` per secret while secrets rotate). */
export const signatureHeader = 'giftwell-signature';

/** How old a delivery may be before a receiver refuses it as a replay. */
export const signatureToleranceSeconds = 300;

const hmac = (secret: string, timestamp: number, body: string) =>
  createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');

/** The signature header's value for `body` sent at `timestamp` (unix seconds), signed with every secret given. */
export function signatureFor(body: string, secrets: string[], timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmac(secret, timestamp, body)}`)].join(',');
}

/**
 * A receiver's check: the raw body was signed with one of `secrets` no more than five minutes ago. Returns why not,
 * or undefined when the delivery is genuine.
 */
export function signatureProblem(
  rawBody: string,
  header: string | undefined,
  secrets: string[],
  now = Date.now(),
): string | undefined {
  const parts = (header ?? '').split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  const signatures = parts.filter(([key]) => key === 'v1').map(([, value]) => Buffer.from(value ?? '', 'hex'));
  if (!Number.isInteger(timestamp) || signatures.length === 0) return 'no signature';
  if (Math.abs(now / 1000 - timestamp) > signatureToleranceSeconds) return 'signed too long ago (a replay?)';
  const genuine = secrets.some((secret) => {
    const expected = Buffer.from(hmac(secret, timestamp, rawBody), 'hex');
    return signatures.some((given) => given.length === expected.length && timingSafeEqual(given, expected));
  });
  return genuine ? undefined : 'signature does not match';
}

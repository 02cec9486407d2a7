import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DeletionEvent, ReleaseWebhookEvent, RolloutWebhookEvent } from '@gift/contracts/webhooks';
import type { Database } from '../db/schema.ts';

/** One event for WEBHOOK_URL, stored to be sent (and sent again) until the receiver takes it. */
async function queue(
  db: Kysely<Database>,
  event: DeletionEvent | ReleaseWebhookEvent | RolloutWebhookEvent,
  reference: string,
) {
  await db
    .insertInto('webhook_deliveries')
    .values({
      event_id: event.id,
      reference,
      type: event.type,
      payload: JSON.stringify(event),
      created_at: event.occurredAt,
      attempts: 0,
      next_attempt_at: event.occurredAt,
    })
    .execute();
}

/**
 * Queues the event for WEBHOOK_URL in the same transaction as the change it tells of: it is sent if and only if the
 * change commits, and sent again until the receiver takes it.
 */
export async function queueWebhook(
  trx: Transaction<Database>,
  type: DeletionEvent['type'],
  request: DeletionEvent['request'],
  at: Date,
) {
  await queue(trx, { id: randomUUID(), type, occurredAt: at.toISOString(), request }, request.reference);
}

/** Queues `release.rolled_back`: the release watch took `from` off and put `to` back, for `reason`. */
export async function queueRollbackWebhook(db: Kysely<Database>, release: ReleaseWebhookEvent['release'], at: Date) {
  const event: ReleaseWebhookEvent = {
    id: randomUUID(),
    type: 'release.rolled_back',
    occurredAt: at.toISOString(),
    release,
  };
  await queue(db, event, `release:${release.remote}`);
}

/** Queues a rollout's step taken by the release watch: advanced, completed or aborted, with the figures. */
export async function queueRolloutWebhook(
  db: Kysely<Database>,
  type: RolloutWebhookEvent['type'],
  rollout: RolloutWebhookEvent['rollout'],
  at: Date,
) {
  const event: RolloutWebhookEvent = { id: randomUUID(), type, occurredAt: at.toISOString(), rollout };
  await queue(db, event, `rollout:${rollout.remote}`);
}

import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { DeletionEvent } from '@gift/contracts/webhooks';
import type { Database } from '../db/schema.ts';

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
  const event: DeletionEvent = { id: randomUUID(), type, occurredAt: at.toISOString(), request };
  await trx
    .insertInto('webhook_deliveries')
    .values({
      event_id: event.id,
      reference: request.reference,
      type,
      payload: JSON.stringify(event),
      created_at: at.toISOString(),
      attempts: 0,
      next_attempt_at: at.toISOString(),
    })
    .execute();
}

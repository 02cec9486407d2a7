import { signatureFor, signatureHeader } from '@gift/contracts/webhooks';
import type { Db } from '../db/database.ts';
import { claimDue, recordSurely, whileClaimed } from '../db/claims.ts';
import { isDatabaseAway } from '../db/faults.ts';
import { retryDelayMs } from '../mail/outbox.ts';

export interface WebhookTarget {
  url: string;
  /** Every delivery carries one signature per secret: two while a secret is being replaced. */
  secrets: string[];
  /** A receiver slower than this to answer counts as a failed attempt. */
  timeoutMs: number;
}

/** Tries before a delivery is given up (about 7 hours in all; `requests webhooks resend <id>` tries again). */
export const maxWebhookAttempts = 12;

/** The same waits as emails: 30 s, 1 min, 2 min … capped at one hour between attempts. */
export const webhookRetryDelayMs = retryDelayMs;

/** One attempt: the status the receiver answered with (only a 2xx counts, a redirect is not followed). */
async function post(target: WebhookTarget, eventId: string, body: string, now: Date): Promise<number> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Giftwell-Webhooks/1',
      'giftwell-event-id': eventId,
      [signatureHeader]: signatureFor(body, target.secrets, Math.floor(now.getTime() / 1000)),
    },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(target.timeoutMs),
  });
  await response.body?.cancel();
  return response.status;
}

/** Sends the events that are due, oldest first; failures wait longer each time. Never throws. */
export async function deliverDueWebhooks(db: Db, target: WebhookTarget, now = new Date(), holder = 'this worker') {
  // Claimed so that no other instance sends them too, renewed while the batch runs: a try that starts within a third
  // of the lease ends (timed out at worst) before the lease does.
  const leaseMs = Math.max(30_000, 3 * target.timeoutMs);
  const due = await claimDue(db, 'webhook_deliveries', { now, leaseMs, limit: 20, holder });
  let delivered = 0;
  let lastError: string | undefined;
  const notRecorded: number[] = [];
  for await (const delivery of whileClaimed(db, 'webhook_deliveries', due, {
    leaseMs,
    holder,
    claimedAt: now.getTime(),
  })) {
    const attempts = delivery.attempts + 1;
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await post(target, delivery.event_id, delivery.payload, new Date());
      if (status < 200 || status > 299) error = `answered ${status}`;
    } catch (caught) {
      // fetch says "fetch failed"; its cause says why (ECONNREFUSED, ENOTFOUND, …).
      const cause = (caught as { cause?: { code?: string; message?: string } }).cause;
      error =
        (caught as Error).name === 'TimeoutError'
          ? `no answer within ${target.timeoutMs} ms`
          : (cause?.code ?? cause?.message ?? String(caught));
    }
    if (!error) delivered++;
    else lastError = error.slice(0, 500);
    const givenUp = error !== null && attempts >= maxWebhookAttempts;
    // Tried again while the database is away, so that a delivered event is not posted twice for it (the receiver
    // deduplicates on the event’s id anyway: docs/operations.md).
    const record = () =>
      db
        .updateTable('webhook_deliveries')
        .set({
          attempts,
          last_status: status,
          last_error: error?.slice(0, 500) ?? null,
          delivered_at: error ? null : new Date().toISOString(),
          failed_at: givenUp ? now.toISOString() : null,
          next_attempt_at: new Date(now.getTime() + webhookRetryDelayMs(attempts)).toISOString(),
          claimed_until: null,
        })
        .where('id', '=', delivery.id)
        .execute();
    if (error) await record();
    else if (!(await recordSurely(record, leaseMs / 2, isDatabaseAway))) notRecorded.push(delivery.id);
  }
  return { due: due.length, delivered, lastError, notRecorded };
}

/** Queues a delivery again at once, with a fresh count of tries (the CLI's `webhooks resend <id>`). */
export async function resendWebhook(db: Db, id: number, now = new Date()): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ attempts: 0, failed_at: null, delivered_at: null, next_attempt_at: now.toISOString(), claimed_until: null })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

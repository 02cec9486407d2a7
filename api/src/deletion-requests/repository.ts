import { createHash, randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { DeletionEvent } from '@gift/contracts/webhooks';
import {
  openStatuses,
  transitions,
  type Database,
  type DeletionRequestTable,
  type RequestStatus,
} from '../db/schema.ts';
import { queueEmail } from '../mail/outbox.ts';
import { queueWebhook } from '../webhooks/queue.ts';
import { confirmationEmail } from './confirmation-email.ts';
import { deadlineOf, extensionRefusal } from './deadline.ts';
import { mailboxKey } from './email.ts';
import { completedEmail, extendedEmail, rejectedEmail } from './outcome-emails.ts';

export interface NewDeletionRequest {
  name: string;
  email: string;
  reason: string;
}

export interface DeletionRequest {
  reference: string;
  name: string;
  email: string;
  reason: string;
  status: RequestStatus;
  receivedAt: string;
  verifiedAt: string | null;
  updatedAt: string;
  /** Months the deadline was extended by (0-2). */
  extendedMonths: number;
  /** When it must be answered by: deadline.ts, the one rule. */
  deadline: string;
}

export interface RequestEvent {
  fromStatus: RequestStatus | null;
  toStatus: RequestStatus;
  note: string | null;
  actor: string;
  at: string;
}

const referenceAlphabet = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';

/** A reference a person can read out on the phone: DEL-XXXX-XXXX, about 40 bits of randomness. */
export function newReference(): string {
  const bytes = randomBytes(8);
  const chars = Array.from(bytes, (byte) => referenceAlphabet[byte % referenceAlphabet.length]).join('');
  return `DEL-${chars.slice(0, 4)}-${chars.slice(4)}`;
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

const toRequest = (row: Omit<DeletionRequestTable, 'confirmation_sent_at' | 'open_email'>): DeletionRequest => ({
  reference: row.reference,
  name: row.name,
  email: row.email,
  reason: row.reason,
  status: row.status,
  receivedAt: row.received_at,
  verifiedAt: row.verified_at,
  updatedAt: row.updated_at,
  extendedMonths: row.extended_months,
  deadline: deadlineOf({ receivedAt: row.received_at, extendedMonths: row.extended_months }).toISOString(),
});

type RequestRow = Parameters<typeof toRequest>[0] & { email: string };

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** 32 random bytes, URL-safe: what the emailed link carries. Only its hash is stored. */
export const newToken = () => randomBytes(32).toString('base64url');

export type TokenCheck =
  | { outcome: 'valid'; reference: string; email: string; receivedAt: string }
  | { outcome: 'unknown' | 'expired' | 'used' };

export interface RepositoryOptions {
  now?: () => Date;
  /** Public site address for the link in the confirmation email. */
  siteUrl?: string;
  confirmationTtlHours?: number;
  /** Whether each change is also queued as an event for WEBHOOK_URL. */
  webhooks?: boolean;
}

/** Before another confirmation email goes to an address with a request still unconfirmed. */
const resendAfterMs = 15 * 60_000;
const maxEmailsPerDay = 3;

export class TransitionError extends Error {}

/** A confirmation lost the race with an operator's move: it rolls back and changes nothing. */
class StatusChanged extends Error {}

/** The one seam to stored deletion requests. */
export function deletionRequests(db: Db, options: RepositoryOptions = {}) {
  const now = options.now ?? (() => new Date());
  const siteUrl = options.siteUrl ?? 'http://127.0.0.1:4173';
  const ttlMs = (options.confirmationTtlHours ?? 24) * 3_600_000;

  /** Tells the platform's back end of a change, in the change's own transaction, when webhooks are on. */
  async function announce(trx: Transaction<Database>, type: DeletionEvent['type'], row: RequestRow, at: Date) {
    if (!options.webhooks) return;
    const { reference, email, name, status, deadline } = toRequest(row);
    await queueWebhook(trx, type, { reference, email, name, status, deadline }, at);
  }

  async function audit(
    trx: Transaction<Database>,
    event: { reference: string; from: RequestStatus | null; to: RequestStatus; note: string | null; actor: string },
    at: Date,
  ) {
    await trx
      .insertInto('deletion_request_events')
      .values({
        reference: event.reference,
        from_status: event.from,
        to_status: event.to,
        note: event.note,
        actor: event.actor,
        at: at.toISOString(),
      })
      .execute();
  }

  /** The row of `reference` as this transaction sees it; a TransitionError when there is none. */
  async function current(trx: Transaction<Database>, reference: string) {
    const row = await trx
      .selectFrom('deletion_requests')
      .selectAll()
      .where('reference', '=', reference)
      .executeTakeFirst();
    if (!row) throw new TransitionError(`No request ${reference}`);
    return row;
  }

  /** A fresh single-use link for `reference`, emailed through the outbox in the caller's transaction. */
  async function sendConfirmation(trx: Transaction<Database>, request: { reference: string; email: string }, at: Date) {
    const token = newToken();
    await trx
      .insertInto('confirmation_tokens')
      .values({
        token_hash: hashToken(token),
        reference: request.reference,
        created_at: at.toISOString(),
        expires_at: new Date(at.getTime() + ttlMs).toISOString(),
        used_at: null,
      })
      .execute();
    const email = confirmationEmail({
      reference: request.reference,
      link: `${siteUrl}/delete-account/confirm#token=${token}`,
      expiresAt: new Date(at.getTime() + ttlMs),
    });
    await queueEmail(trx, { content: email, to: request.email, reference: request.reference }, at);
  }

  /**
   * Claims the right to send a confirmation mail to the mailbox `email` delivers to (`v+1@` and `v+2@` are one):
   * not within 15 minutes of its last one, nor more than 3 in 24 hours. One compare-and-set on the mailbox's row, so
   * that submits arriving together claim it once: PostgreSQL re-checks the condition on the row a concurrent claim has
   * just changed, and SQLite runs one writer at a time.
   */
  async function claimMail(trx: Transaction<Database>, email: string, at: Date): Promise<boolean> {
    const mailbox = createHash('sha256').update(mailboxKey(email)).digest('hex');
    const now = at.toISOString();
    const dayAgo = new Date(at.getTime() - 86_400_000).toISOString();
    await trx
      .insertInto('confirmation_mailboxes')
      .values({ mailbox, last_sent_at: null, day_started_at: now, sent_in_day: 0 })
      .onConflict((conflict) => conflict.column('mailbox').doNothing())
      .execute();
    const claimed = await trx
      .updateTable('confirmation_mailboxes')
      .set((eb) => {
        const newDay = eb('day_started_at', '<=', dayAgo);
        return {
          last_sent_at: now,
          day_started_at: eb.case().when(newDay).then(now).else(eb.ref('day_started_at')).end(),
          sent_in_day: eb
            .case()
            .when(newDay)
            .then(1)
            .else(eb('sent_in_day', '+', 1))
            .end(),
        };
      })
      .where('mailbox', '=', mailbox)
      .where((eb) =>
        eb.and([
          eb.or([
            eb('last_sent_at', 'is', null),
            eb('last_sent_at', '<', new Date(at.getTime() - resendAfterMs).toISOString()),
          ]),
          eb.or([eb('day_started_at', '<=', dayAgo), eb('sent_in_day', '<', maxEmailsPerDay)]),
        ]),
      )
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  /** Whether the unconfirmed request `reference` may be sent another link, claimed for it when it may. */
  async function claimResend(trx: Transaction<Database>, reference: string, email: string, at: Date) {
    if (!(await claimMail(trx, email, at))) return false;
    const stillOpen = await trx
      .updateTable('deletion_requests')
      .set({ confirmation_sent_at: at.toISOString() })
      .where('reference', '=', reference)
      .where('status', '=', 'received')
      .executeTakeFirst();
    return Number(stillOpen.numUpdatedRows) === 1;
  }

  async function checkToken(token: string, at: Date): Promise<TokenCheck> {
    const row = await db
      .selectFrom('confirmation_tokens')
      .innerJoin('deletion_requests', 'deletion_requests.reference', 'confirmation_tokens.reference')
      .select([
        'confirmation_tokens.reference',
        'confirmation_tokens.expires_at',
        'confirmation_tokens.used_at',
        'deletion_requests.status',
        'deletion_requests.email',
        'deletion_requests.received_at',
      ])
      .where('confirmation_tokens.token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row) return { outcome: 'unknown' };
    if (row.used_at || row.status !== 'received') return { outcome: 'used' };
    if (Date.parse(row.expires_at) <= at.getTime()) return { outcome: 'expired' };
    return { outcome: 'valid', reference: row.reference, email: row.email, receivedAt: row.received_at };
  }

  return {
    /**
     * Stores a request, or returns the open one for the same email. Resolves only once the row is committed.
     * `created` is false when an open request already existed.
     */
    async submit(request: NewDeletionRequest): Promise<{ reference: string; created: boolean; emailed: boolean }> {
      for (let attempt = 0; attempt < 3; attempt++) {
        const when = now();
        const at = when.toISOString();
        try {
          // One transaction that writes on both paths: a new request and a repeated one each wait for the same
          // commit, so the time of the answer does not tell whether the address already had a request.
          return await db.transaction().execute(async (trx) => {
            const existing = await trx
              .selectFrom('deletion_requests')
              .select(['reference', 'status'])
              .where('open_email', '=', request.email)
              .executeTakeFirst();
            if (existing) {
              const emailed =
                existing.status === 'received' && (await claimResend(trx, existing.reference, request.email, when));
              if (emailed) await sendConfirmation(trx, { reference: existing.reference, email: request.email }, when);
              await trx
                .insertInto('deletion_request_events')
                .values({
                  reference: existing.reference,
                  from_status: existing.status,
                  to_status: existing.status,
                  note: emailed ? 'asked again: a new confirmation link was sent' : 'asked again: no new link yet',
                  actor: 'web form',
                  at,
                })
                .execute();
              return { reference: existing.reference, created: false, emailed };
            }
            // A new address of a mailbox that had its mails (`v+2@` after `v+1@`) is stored, answered as any other
            // and sent nothing: asking again once the mailbox's wait is over sends its link.
            const emailed = await claimMail(trx, request.email, when);
            const row = {
              reference: newReference(),
              name: request.name,
              email: request.email,
              reason: request.reason,
              status: 'received' as const,
              received_at: at,
              verified_at: null,
              updated_at: at,
              confirmation_sent_at: emailed ? at : null,
              open_email: request.email,
              extended_months: 0,
            };
            const { reference } = row;
            await trx.insertInto('deletion_requests').values(row).execute();
            const note = emailed ? null : 'no link sent: its mailbox had its confirmation mails for now';
            await audit(trx, { reference, from: null, to: 'received', note, actor: 'web form' }, when);
            if (emailed) await sendConfirmation(trx, { reference, email: request.email }, when);
            await announce(trx, 'received', row, when);
            return { reference, created: true, emailed };
          });
        } catch (error) {
          // A concurrent request for the same email won the race (or, rarely, the reference collided): look again.
          if (!isUniqueViolation(error)) throw error;
        }
      }
      throw new Error('Could not store the deletion request after three attempts');
    },

    async get(reference: string): Promise<(DeletionRequest & { events: RequestEvent[] }) | undefined> {
      const row = await db
        .selectFrom('deletion_requests')
        .selectAll()
        .where('reference', '=', reference)
        .executeTakeFirst();
      if (!row) return undefined;
      const events = await db
        .selectFrom('deletion_request_events')
        .select(['from_status', 'to_status', 'note', 'actor', 'at'])
        .where('reference', '=', reference)
        .orderBy('id')
        .execute();
      return {
        ...toRequest(row),
        events: events.map((event) => ({
          fromStatus: event.from_status,
          toStatus: event.to_status,
          note: event.note,
          actor: event.actor,
          at: event.at,
        })),
      };
    },

    /** What a confirmation link would confirm, changing nothing. */
    lookup: (token: string) => checkToken(token, now()),

    /** The owner of the address confirms: the token is used up and the request becomes verified. */
    async confirm(token: string): Promise<TokenCheck> {
      const at = now();
      const check = await checkToken(token, at);
      if (check.outcome !== 'valid') return check;
      return db
        .transaction()
        .execute(async (trx) => {
          const used = await trx
            .updateTable('confirmation_tokens')
            .set({ used_at: at.toISOString() })
            .where('token_hash', '=', hashToken(token))
            .where('used_at', 'is', null)
            .executeTakeFirst();
          // Two presses racing: only one uses the token.
          if (Number(used.numUpdatedRows) !== 1) return { outcome: 'used' } as const;
          // Compare-and-set: a request rejected since the link was checked stays rejected.
          const verified = await trx
            .updateTable('deletion_requests')
            .set({ status: 'verified', verified_at: at.toISOString(), updated_at: at.toISOString() })
            .where('reference', '=', check.reference)
            .where('status', '=', 'received')
            .returningAll()
            .executeTakeFirst();
          if (!verified) throw new StatusChanged();
          const event = { reference: check.reference, from: 'received', to: 'verified' } as const;
          await audit(trx, { ...event, note: 'confirmed from the emailed link', actor: 'email owner' }, at);
          await announce(trx, 'verified', verified, at);
          return check;
        })
        .catch((error: unknown) => {
          // The token stays unused (the transaction rolled back); the request has moved on without it.
          if (error instanceof StatusChanged) return { outcome: 'used' } as const;
          throw error;
        });
    },

    /** Deletes requests nobody confirmed within `days`, with their tokens, audit trail, emails and events. */
    async purgeUnverified(days: number): Promise<number> {
      const cutoff = new Date(now().getTime() - days * 86_400_000).toISOString();
      return db.transaction().execute(async (trx) => {
        const stale = trx
          .selectFrom('deletion_requests')
          .select('reference')
          .where('status', '=', 'received')
          .where('received_at', '<', cutoff);
        await trx.deleteFrom('webhook_deliveries').where('reference', 'in', stale).execute();
        // A mailbox's count matters for a day after its last mail.
        const dayAgo = new Date(now().getTime() - 86_400_000).toISOString();
        await trx.deleteFrom('confirmation_mailboxes').where('day_started_at', '<', dayAgo).execute();
        const result = await trx
          .deleteFrom('deletion_requests')
          .where('status', '=', 'received')
          .where('received_at', '<', cutoff)
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },

    async list({ openOnly }: { openOnly: boolean }): Promise<DeletionRequest[]> {
      let query = db.selectFrom('deletion_requests').selectAll().orderBy('received_at').orderBy('reference');
      if (openOnly) query = query.where('status', 'in', openStatuses);
      return (await query.execute()).map(toRequest);
    },

    /**
     * Moves a request on. In the same transaction: its audit entry, the email that tells the requester of a
     * completion or a rejection (with the reason, required), and the event for the back end. Compare-and-set on the
     * status read: of two operators racing, one moves it and the other gets a TransitionError, with nothing written.
     */
    async transition(reference: string, to: RequestStatus, { note, actor }: { note?: string; actor: string }) {
      if (to === 'rejected' && !note?.trim()) {
        throw new TransitionError('A rejection needs a reason: it is emailed to the requester');
      }
      return db.transaction().execute(async (trx) => {
        const row = await current(trx, reference);
        if (!transitions[row.status].includes(to)) {
          throw new TransitionError(`A ${row.status} request cannot become ${to}`);
        }
        const when = now();
        const at = when.toISOString();
        const moved = await trx
          .updateTable('deletion_requests')
          .set({ status: to, updated_at: at, open_email: openStatuses.includes(to) ? row.email : null })
          .where('reference', '=', reference)
          .where('status', '=', row.status)
          .executeTakeFirst();
        // Someone else moved it between the read and the write: nothing is changed or audited twice.
        if (Number(moved.numUpdatedRows) !== 1) {
          throw new TransitionError(`${reference} was changed by someone else just now; look at it again`);
        }
        await audit(trx, { reference, from: row.status, to, note: note ?? null, actor }, when);
        const told =
          to === 'completed'
            ? completedEmail({ reference, siteUrl })
            : to === 'rejected'
              ? rejectedEmail({ reference, reason: note!, siteUrl })
              : undefined;
        if (told) await queueEmail(trx, { content: told, to: row.email, reference }, when);
        await announce(trx, to as DeletionEvent['type'], { ...row, status: to, updated_at: at }, when);
      });
    },

    /**
     * Moves the deadline by `byMonths` (see deadline.ts for when that is allowed) and emails the requester the reason
     * and the new date, with its audit entry and event, in one transaction; compare-and-set like `transition`.
     */
    async extend(reference: string, byMonths: number, { reason, actor }: { reason: string; actor: string }) {
      if (!reason.trim()) throw new TransitionError('An extension needs a reason: it is emailed to the requester');
      return db.transaction().execute(async (trx) => {
        const row = await current(trx, reference);
        if (!openStatuses.includes(row.status))
          throw new TransitionError(`A ${row.status} request has no deadline left`);
        const when = now();
        const refusal = extensionRefusal(
          { receivedAt: row.received_at, extendedMonths: row.extended_months },
          byMonths,
          when,
        );
        if (refusal) throw new TransitionError(refusal);
        const extended = { ...row, extended_months: row.extended_months + byMonths, updated_at: when.toISOString() };
        const moved = await trx
          .updateTable('deletion_requests')
          .set({ extended_months: extended.extended_months, updated_at: extended.updated_at })
          .where('reference', '=', reference)
          .where('status', '=', row.status)
          .where('extended_months', '=', row.extended_months)
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) {
          throw new TransitionError(`${reference} was changed by someone else just now; look at it again`);
        }
        const note = `deadline extended by ${byMonths} month(s): ${reason}`;
        await audit(trx, { reference, from: row.status, to: row.status, note, actor }, when);
        const deadline = new Date(toRequest(extended).deadline);
        await queueEmail(
          trx,
          {
            content: extendedEmail({ reference, months: byMonths, reason, deadline, siteUrl }),
            to: row.email,
            reference,
          },
          when,
        );
        await announce(trx, 'extended', extended, when);
        return { deadline };
      });
    },
  };
}

export type DeletionRequests = ReturnType<typeof deletionRequests>;

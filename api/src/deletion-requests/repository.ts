import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { openStatuses, transitions, type RequestStatus } from '../db/schema.ts';

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
  updatedAt: string;
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

const toRequest = (row: {
  reference: string;
  name: string;
  email: string;
  reason: string;
  status: RequestStatus;
  received_at: string;
  updated_at: string;
}): DeletionRequest => ({
  reference: row.reference,
  name: row.name,
  email: row.email,
  reason: row.reason,
  status: row.status,
  receivedAt: row.received_at,
  updatedAt: row.updated_at,
});

export class TransitionError extends Error {}

/** The one seam to stored deletion requests. */
export function deletionRequests(db: Db, now: () => Date = () => new Date()) {
  async function findOpenByEmail(email: string) {
    const row = await db
      .selectFrom('deletion_requests')
      .select('reference')
      .where('open_email', '=', email)
      .executeTakeFirst();
    return row?.reference;
  }

  return {
    /**
     * Stores a request, or returns the open one for the same email. Resolves only once the row is committed.
     * `created` is false when an open request already existed.
     */
    async submit(request: NewDeletionRequest): Promise<{ reference: string; created: boolean }> {
      for (let attempt = 0; attempt < 3; attempt++) {
        const existing = await findOpenByEmail(request.email);
        if (existing) return { reference: existing, created: false };
        const reference = newReference();
        const at = now().toISOString();
        try {
          await db.transaction().execute(async (trx) => {
            await trx
              .insertInto('deletion_requests')
              .values({
                reference,
                name: request.name,
                email: request.email,
                reason: request.reason,
                status: 'received',
                received_at: at,
                updated_at: at,
                open_email: request.email,
              })
              .execute();
            await trx
              .insertInto('deletion_request_events')
              .values({ reference, from_status: null, to_status: 'received', note: null, actor: 'web form', at })
              .execute();
          });
          return { reference, created: true };
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

    async list({ openOnly }: { openOnly: boolean }): Promise<DeletionRequest[]> {
      let query = db.selectFrom('deletion_requests').selectAll().orderBy('received_at').orderBy('reference');
      if (openOnly) query = query.where('status', 'in', openStatuses);
      return (await query.execute()).map(toRequest);
    },

    /** Moves a request on; every move is written to its audit trail in the same transaction. */
    async transition(reference: string, to: RequestStatus, { note, actor }: { note?: string; actor: string }) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('deletion_requests')
          .select(['status', 'email'])
          .where('reference', '=', reference)
          .executeTakeFirst();
        if (!row) throw new TransitionError(`No request ${reference}`);
        if (!transitions[row.status].includes(to)) {
          throw new TransitionError(`A ${row.status} request cannot become ${to}`);
        }
        const at = now().toISOString();
        await trx
          .updateTable('deletion_requests')
          .set({ status: to, updated_at: at, open_email: openStatuses.includes(to) ? row.email : null })
          .where('reference', '=', reference)
          .where('status', '=', row.status)
          .execute();
        await trx
          .insertInto('deletion_request_events')
          .values({ reference, from_status: row.status, to_status: to, note: note ?? null, actor, at })
          .execute();
      });
    },
  };
}

export type DeletionRequests = ReturnType<typeof deletionRequests>;

import type { Generated } from 'kysely';

export const requestStatuses = ['received', 'verified', 'in_progress', 'completed', 'rejected'] as const;
export type RequestStatus = (typeof requestStatuses)[number];

/** Requests not yet closed; one per email at a time. */
export const openStatuses: RequestStatus[] = ['received', 'verified', 'in_progress'];

/**
 * The moves allowed. Only the owner of the address verifies (through the emailed link); operators act on
 * verified requests, and may reject any open one.
 */
export const transitions: Record<RequestStatus, RequestStatus[]> = {
  received: ['verified', 'rejected'],
  verified: ['in_progress', 'completed', 'rejected'],
  in_progress: ['completed', 'rejected'],
  completed: [],
  rejected: [],
};

export interface DeletionRequestTable {
  reference: string;
  name: string;
  email: string;
  reason: string;
  status: RequestStatus;
  /** ISO 8601 UTC; text so that SQLite and PostgreSQL store the same thing. */
  received_at: string;
  updated_at: string;
  verified_at: string | null;
  /** When the last confirmation email was queued (the resend rule's clock). */
  confirmation_sent_at: string | null;
  /** Equals `email` while the request is open, null once closed: a unique index keeps one open request per email. */
  open_email: string | null;
}

export interface DeletionRequestEventTable {
  id: Generated<number>;
  reference: string;
  from_status: RequestStatus | null;
  to_status: RequestStatus;
  note: string | null;
  actor: string;
  at: string;
}

export interface LocationShareTable {
  /** The token of the link the sender's app sent; one location per token, the latest wins. */
  token: string;
  latitude: number | null;
  longitude: number | null;
  accuracy_m: number | null;
  address: string | null;
  first_shared_at: string;
  shared_at: string;
}

export interface ConfirmationTokenTable {
  /** SHA-256 of the token: the token itself exists only in the email. */
  token_hash: string;
  reference: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface EmailOutboxTable {
  id: Generated<number>;
  reference: string | null;
  to_address: string;
  subject: string;
  body_text: string;
  created_at: string;
  attempts: number;
  next_attempt_at: string;
  sent_at: string | null;
  failed_at: string | null;
  last_error: string | null;
}

export interface Database {
  confirmation_tokens: ConfirmationTokenTable;
  email_outbox: EmailOutboxTable;
  deletion_requests: DeletionRequestTable;
  deletion_request_events: DeletionRequestEventTable;
  location_shares: LocationShareTable;
}

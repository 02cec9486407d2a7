import type { Generated } from 'kysely';

export const requestStatuses = ['received', 'in_progress', 'completed', 'rejected'] as const;
export type RequestStatus = (typeof requestStatuses)[number];

/** Requests the operators still have to act on; one per email at a time. */
export const openStatuses: RequestStatus[] = ['received', 'in_progress'];

/** The moves an operator may make. */
export const transitions: Record<RequestStatus, RequestStatus[]> = {
  received: ['in_progress', 'completed', 'rejected'],
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

export interface Database {
  deletion_requests: DeletionRequestTable;
  deletion_request_events: DeletionRequestEventTable;
  location_shares: LocationShareTable;
}

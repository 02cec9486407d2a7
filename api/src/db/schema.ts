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
  /** Months the deadline was extended by, 0 to 2 (see deadline.ts). */
  extended_months: number;
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
  /** While a worker sends it: when its claim lapses and another worker may take the row. */
  claimed_until: string | null;
  /** Which worker holds the claim (INSTANCE_NAME): it takes its own rows back when it starts again. */
  claimed_by: string | null;
  /**
   * When its worker was about to write the message's end to the mail server: from then on it may have been delivered
   * whatever the worker learns, and it is not sent again unless an operator says so.
   */
  end_written_at: string | null;
}

/** Events for the platform's back end, queued with the change they tell of and sent to WEBHOOK_URL. */
export interface WebhookDeliveryTable {
  id: Generated<number>;
  /** The event's own id, in its body: a receiver that sees it twice acts once. */
  event_id: string;
  reference: string;
  type: string;
  /** The exact JSON body that is signed and sent, on every attempt. */
  payload: string;
  created_at: string;
  attempts: number;
  next_attempt_at: string;
  delivered_at: string | null;
  failed_at: string | null;
  last_status: number | null;
  last_error: string | null;
  claimed_until: string | null;
  /** Which worker holds the claim (INSTANCE_NAME): it takes its own rows back when it starts again. */
  claimed_by: string | null;
}

/** A job one instance runs at a time: the instance that holds it, until when. */
export interface LeaseTable {
  name: string;
  holder: string | null;
  until: string;
}

/**
 * The confirmation mails one mailbox got (`v+1@` and `v+2@` are one mailbox): its key is a SHA-256 of the folded
 * address, and a row is forgotten a day after its last mail.
 */
export interface ConfirmationMailboxTable {
  mailbox: string;
  last_sent_at: string | null;
  /** The start of the 24 hours that `sent_in_day` counts. */
  day_started_at: string;
  sent_in_day: number;
}

/**
 * What real visitors measured, as it came (kept 48 hours): one row per beacon with the view's tags and the web vitals
 * it carried, and whether it counts the view (a view's first beacon does). Its errors are rows of `field_errors`.
 */
export interface FieldViewTable {
  id: Generated<number>;
  received_at: string;
  route: string;
  remote: string;
  version: string;
  shell: string;
  viewport: string;
  /** 1 when this beacon counts a view, 0 for a later beacon of the same view. */
  counted: number;
  /** The client's network (IPv4 /24, IPv6 /48) as a hash keyed with that day's key: never an address. */
  network: Generated<string>;
  /** The same network's hash with the keys of the day before and of the day before that (see `networkColumn`). */
  network_1: Generated<string>;
  network_2: Generated<string>;
  /** The nonce of the ticket the site served this view with, when the report carried a valid one; else null. */
  ticket: string | null;
  /** How many errors the beacon reported (their count, as the page counted them). */
  errors: Generated<number>;
  /** How many reports this row stands for: 1, or more while the storage budget samples. */
  weight: Generated<number>;
  lcp: number | null;
  inp: number | null;
  /** The goal of its page this beacon says its view reached (see `goalNames`), or null. */
  goal: string | null;
  cls: number | null;
  fcp: number | null;
  ttfb: number | null;
}

/** The errors a beacon reported (kept 48 hours): message, first stack frame, how many times in that view. */
export interface FieldErrorTable {
  id: Generated<number>;
  received_at: string;
  route: string;
  remote: string;
  version: string;
  message: string;
  frame: string | null;
  count: number;
  /** How many reports this row stands for: 1, or more while the storage budget samples. */
  weight: Generated<number>;
}

/**
 * One page view the site vouched for (a valid ticket), as its reports add up (kept 48 hours, as the raw reports): the
 * first report's time and network, whether a counting report came, whether any report of it carried an error, its
 * slowest INP and LCP. What a release decision reads (`countedFigures`): its cost follows the views, never the reports.
 */
export interface FieldCountedTable {
  remote: string;
  version: string;
  /** The ticket's nonce. */
  ticket: string;
  route: string;
  /** When its first report arrived. */
  received_at: string;
  network: string;
  network_1: string;
  network_2: string;
  /** 1 once a report counting the view (`view: true`) has come. */
  counted: number;
  /** 1 when its ticket says the visitor was assigned its arms on this view (a new visitor during a test). */
  assigned: Generated<number>;
  /** 1 once a report of it carried an error. */
  erred: number;
  inp: number | null;
  lcp: number | null;
}

/** A goal a view reached (kept 48 hours): one row per ticket and goal, however often it was said. */
export interface FieldGoalTable {
  remote: string;
  version: string;
  ticket: string;
  goal: string;
  received_at: string;
}

/** The day's key of the networks' hash: a new random one each day, deleted with the raw reports it keyed. */
export interface FieldNetworkKeyTable {
  day: string;
  key: string;
}

/**
 * Hourly figures per remote, version and route (kept 90 days): views, views with an error ('erred'), each metric's p75
 * and p95, each error's count.
 */
export interface FieldHourTable {
  hour: string;
  remote: string;
  version: string;
  route: string;
  kind: 'view' | 'erred' | 'metric' | 'error';
  name: string;
  count: number;
  p75: number | null;
  p95: number | null;
}

/**
 * An experiment's evidence, a day at a time (kept 90 days): per remote, version, goal and network, the views counted
 * that day and how many of them reached the goal. `network` names the network alike on every day it came back within
 * two days (see `field_network_chains`), so that an experiment weighs a network once however many days it runs.
 */
export interface FieldGoalDayTable {
  day: string;
  remote: string;
  version: string;
  goal: string;
  network: string;
  views: number;
  conversions: number;
  /** Of the views (uncapped), those on which the visitor was assigned: what the sample ratio check counts. */
  assigned: Generated<number>;
}

/**
 * Which name a network's hash of a day goes by in `field_goal_days` (kept 3 days): the name it had the day before or
 * the one before that (a report keeps the network's hash with those days' keys), or its own hash when new.
 */
export interface FieldNetworkChainTable {
  day: string;
  hash: string;
  chain: string;
}

export interface Database {
  field_goal_days: FieldGoalDayTable;
  field_network_chains: FieldNetworkChainTable;
  field_views: FieldViewTable;
  field_counted: FieldCountedTable;
  field_goals: FieldGoalTable;
  field_errors: FieldErrorTable;
  field_hours: FieldHourTable;
  field_network_keys: FieldNetworkKeyTable;
  confirmation_mailboxes: ConfirmationMailboxTable;
  confirmation_tokens: ConfirmationTokenTable;
  email_outbox: EmailOutboxTable;
  deletion_requests: DeletionRequestTable;
  deletion_request_events: DeletionRequestEventTable;
  location_shares: LocationShareTable;
  webhook_deliveries: WebhookDeliveryTable;
  leases: LeaseTable;
  site_releases: SiteReleaseTable;
  site_release_events: SiteReleaseEventTable;
  site_rollouts: SiteRolloutTable;
}

/** A published version of a remote (PostgreSQL only): the releases' truth that every site server follows. */
export interface SiteReleaseTable {
  remote: string;
  version: string;
  entry: string;
  /** JSON: `{ "<path in the build>": "<sha256 hex>" }`. */
  files: string;
  verdict: string | null;
  published_by: string;
  published_at: string;
  live: boolean;
  switched_at: string | null;
}

/** What happened to a version (PostgreSQL only), as the JSON lines hold it without a database. */
export interface SiteReleaseEventTable {
  id: Generated<number>;
  remote: string;
  version: string;
  event: string;
  /** JSON: the event's own fields (how, why, reason, seconds). */
  detail: string;
  who: string;
  at: string;
}

/** A staged rollout under way (PostgreSQL only): the remote, its canary version, the whole state as JSON. */
export interface SiteRolloutTable {
  remote: string;
  version: string;
  state: string;
}

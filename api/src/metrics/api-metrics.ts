import { sql } from 'kysely';
import { Counter, Gauge } from 'prom-client';
import { isDatabaseReachable, type Db } from '../db/database.ts';
import type { Metrics } from './metrics.ts';

/** How a deletion request ended: `accepted` is stored and queued for its email; the rest stored nothing. */
export type DeletionOutcome =
  'accepted' | 'missing_fields' | 'invalid' | 'rate_limited' | 'refused' | 'unavailable' | 'failed';

/** Why a field-data report was refused: a field that names what the site does not serve, or the request itself. */
export type FieldDataRefusal =
  'route' | 'remote' | 'version' | 'goal' | 'invalid' | 'rate_limited' | 'refused' | 'unavailable' | 'failed';

/** What a 4xx or 5xx said, when the handler did not say more (schema, origin check, per-address limit, database). */
export const outcomeOfStatus = (status: number) =>
  status === 429
    ? 'rate_limited'
    : status === 503
      ? 'unavailable'
      : status >= 500
        ? 'failed'
        : status === 403
          ? 'refused'
          : 'invalid';

/** The queues the workers send from, as their tables hold them (every instance reads the same rows). */
const queues = [
  { queue: 'mail', table: 'email_outbox', done: 'sent_at' },
  { queue: 'webhooks', table: 'webhook_deliveries', done: 'delivered_at' },
] as const;

type QueueState = { queue: string; waiting: number; dead: number; oldest: string | null };

/** Both queues as their tables hold them now, or undefined when the database does not answer within 250 ms. */
async function readQueues(db: Db): Promise<QueueState[] | undefined> {
  const read = Promise.all(
    queues.map(async ({ queue, table, done }) => {
      const { rows } = await sql<{ state: string; n: number | string; oldest: string | null }>`select
        case when failed_at is null then 'waiting' else 'dead' end as state, count(*) as n, min(created_at) as oldest
        from ${sql.table(table)} where ${sql.ref(done)} is null group by 1`.execute(db);
      const of = (state: string) => rows.find((row) => row.state === state);
      return {
        queue,
        waiting: Number(of('waiting')?.n ?? 0),
        dead: Number(of('dead')?.n ?? 0),
        oldest: of('waiting')?.oldest ?? null,
      };
    }),
  );
  read.catch(() => undefined);
  return Promise.race([read, new Promise<undefined>((resolve) => setTimeout(resolve, 250))]).catch(() => undefined);
}

/**
 * The API's families: deletion requests received and how they ended, the mail outbox and the webhook queue (waiting,
 * oldest age, attempts failed, given up), field data received, refused, sampled out and stored, and the views counted
 * per remote and version. The queues' gauges are read from the database when scraped (the same figures from every
 * instance: take their max, not their sum); a database that does not answer within 250 ms leaves them out.
 */
export function apiMetrics(
  metrics: Metrics,
  db: Db,
  fieldDataMaxBytes: number,
  databaseReady: () => boolean = () => true,
) {
  const registers = [metrics.registry];
  new Gauge({
    name: 'api_database_up',
    help:
      'Whether the database answers this process (select 1 within 250 ms at the scrape) and is migrated: 1, else 0. ' +
      'Pages are served without it; forms, share links and field data answer 503.',
    registers,
    async collect() {
      const answered = await Promise.race([
        isDatabaseReachable(db),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 250)),
      ]);
      this.set(answered && databaseReady() ? 1 : 0);
    },
  });
  const received = new Counter({
    name: 'api_deletion_requests_received_total',
    help: 'Deletion requests received, by how they were sent (json from the page script, form posted natively).',
    labelNames: ['via'],
    registers,
  });
  const outcomes = new Counter({
    name: 'api_deletion_requests_total',
    help: 'Deletion requests by outcome: accepted (stored, email queued) or why not.',
    labelNames: ['outcome'],
    registers,
  });
  const attemptsFailed = new Counter({
    name: 'api_queue_attempts_failed_total',
    help: 'Attempts this instance made to send an email or deliver a webhook event that failed (tried again later).',
    labelNames: ['queue'],
    registers,
  });
  for (const { queue } of queues) attemptsFailed.inc({ queue }, 0);

  // One read of both queues per scrape, shared by their three gauges.
  let reading: { at: number; answer: Promise<QueueState[] | undefined> } | undefined;
  const queueStates = () => {
    if (!reading || Date.now() - reading.at > 500) reading = { at: Date.now(), answer: readQueues(db) };
    return reading.answer;
  };
  const queueGauge = (name: string, help: string, value: (state: QueueState) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'],
      registers,
      async collect() {
        this.reset();
        for (const state of (await queueStates()) ?? []) this.set({ queue: state.queue }, value(state));
      },
    });
  queueGauge(
    'api_queue_waiting_messages',
    'Messages (emails, webhook events) waiting to be sent.',
    (state) => state.waiting,
  );
  queueGauge(
    'api_queue_oldest_age_seconds',
    'Age of the oldest item waiting to be sent; 0 when none waits.',
    (state) => (state.oldest ? Math.max(0, (Date.now() - Date.parse(state.oldest)) / 1000) : 0),
  );
  queueGauge(
    'api_queue_dead_messages',
    'Messages given up on after their last attempt (an operator sends them again).',
    (state) => state.dead,
  );

  const fieldReceived = new Counter({
    name: 'api_field_data_received_total',
    help: 'Field-data reports (one page view each) received.',
    registers,
  });
  const fieldRefused = new Counter({
    name: 'api_field_data_refused_total',
    help: 'Field-data reports refused, by reason: a route, remote or version the site does not serve, or the request.',
    labelNames: ['reason'],
    registers,
  });
  const fieldSampled = new Counter({
    name: 'api_field_data_sampled_out_total',
    help: 'Field-data reports answered but not stored: the storage budget sampled them, or an unticketed cap.',
    labelNames: ['reason'],
    registers,
  });
  const views = new Counter({
    name: 'api_field_data_views_total',
    help: 'Views counted: reports stored with a valid view ticket, by remote and version.',
    labelNames: ['remote', 'version'],
    registers,
  });
  const storedBytes = new Gauge({
    name: 'api_field_data_stored_bytes',
    help: 'Bytes the raw field data takes in the database, as last measured (once a minute, while reports arrive).',
    registers,
  });
  new Gauge({
    name: 'api_field_data_max_bytes',
    help: 'FIELD_DATA_MAX_MB in bytes: past it, new reports are sampled.',
    registers,
  }).set(fieldDataMaxBytes);

  return {
    deletionRequest(via: 'json' | 'form') {
      received.inc({ via });
    },
    deletionOutcome(outcome: DeletionOutcome) {
      outcomes.inc({ outcome });
    },
    queueAttemptsFailed(queue: 'mail' | 'webhooks', count: number) {
      if (count > 0) attemptsFailed.inc({ queue }, count);
    },
    fieldData: {
      received: () => fieldReceived.inc(),
      refused: (reason: FieldDataRefusal) => fieldRefused.inc({ reason }),
      sampledOut: (reason: 'budget' | 'unticketed_cap') => fieldSampled.inc({ reason }),
      counted: (remote: string, version: string) => views.inc({ remote, version }),
      measured: (bytes: number) => storedBytes.set(bytes),
    },
  };
}

export type ApiMetrics = ReturnType<typeof apiMetrics>;

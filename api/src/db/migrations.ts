import {
  Migrator,
  PostgresAdapter,
  sql,
  type CreateTableBuilder,
  type Kysely,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import { withoutSecrets } from '../mail/secrets.ts';
import type { Database } from './schema.ts';

const isPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** Migrations live in code so that the service runs them at start, with no files to ship beside it. */
const migrations: Record<string, Migration> = {
  '2026-11-22-01-deletion-requests': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('deletion_requests')
        .addColumn('reference', 'varchar(32)', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('email', 'varchar(254)', (column) => column.notNull())
        .addColumn('reason', 'text', (column) => column.notNull())
        .addColumn('status', 'varchar(16)', (column) => column.notNull())
        .addColumn('received_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('updated_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('open_email', 'varchar(254)', (column) => column.unique())
        .execute();
      await db.schema.createIndex('deletion_requests_email').on('deletion_requests').column('email').execute();
      await db.schema
        .createIndex('deletion_requests_status_received')
        .on('deletion_requests')
        .columns(['status', 'received_at'])
        .execute();
      await db.schema
        .createTable('deletion_request_events')
        .addColumn('id', isPostgres(db) ? 'serial' : 'integer', (column) => column.primaryKey())
        .addColumn('reference', 'varchar(32)', (column) =>
          column.notNull().references('deletion_requests.reference').onDelete('cascade'),
        )
        .addColumn('from_status', 'varchar(16)')
        .addColumn('to_status', 'varchar(16)', (column) => column.notNull())
        .addColumn('note', 'text')
        .addColumn('actor', 'varchar(64)', (column) => column.notNull())
        .addColumn('at', 'varchar(32)', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('deletion_request_events_reference')
        .on('deletion_request_events')
        .column('reference')
        .execute();
    },
  },
  '2026-11-22-02-location-shares': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('location_shares')
        .addColumn('token', 'varchar(128)', (column) => column.primaryKey())
        .addColumn('latitude', 'double precision')
        .addColumn('longitude', 'double precision')
        .addColumn('accuracy_m', 'double precision')
        .addColumn('address', 'text')
        .addColumn('first_shared_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('shared_at', 'varchar(32)', (column) => column.notNull())
        .execute();
    },
  },
  '2026-11-22-03-confirmation': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('deletion_requests').addColumn('verified_at', 'varchar(32)').execute();
      await db.schema
        .createTable('confirmation_tokens')
        .addColumn('token_hash', 'varchar(64)', (column) => column.primaryKey())
        .addColumn('reference', 'varchar(32)', (column) =>
          column.notNull().references('deletion_requests.reference').onDelete('cascade'),
        )
        .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('expires_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('used_at', 'varchar(32)')
        .execute();
      await db.schema
        .createTable('email_outbox')
        .addColumn('id', isPostgres(db) ? 'serial' : 'integer', (column) => column.primaryKey())
        .addColumn('reference', 'varchar(32)', (column) =>
          column.references('deletion_requests.reference').onDelete('cascade'),
        )
        .addColumn('to_address', 'varchar(254)', (column) => column.notNull())
        .addColumn('subject', 'text', (column) => column.notNull())
        .addColumn('body_text', 'text', (column) => column.notNull())
        .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('sent_at', 'varchar(32)')
        .addColumn('failed_at', 'varchar(32)')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema
        .createIndex('email_outbox_due')
        .on('email_outbox')
        .columns(['sent_at', 'next_attempt_at'])
        .execute();
    },
  },
  '2026-11-23-01-hardening': {
    async up(db: Kysely<unknown>) {
      // When the last confirmation email was queued: the resend rule compares and sets it in one statement.
      await db.schema.alterTable('deletion_requests').addColumn('confirmation_sent_at', 'varchar(32)').execute();
      await sql`update deletion_requests set confirmation_sent_at =
        (select max(created_at) from confirmation_tokens where confirmation_tokens.reference = deletion_requests.reference)`.execute(
        db,
      );
      await db.schema
        .createIndex('confirmation_tokens_reference')
        .on('confirmation_tokens')
        .columns(['reference', 'created_at'])
        .execute();
      await db.schema.createIndex('location_shares_shared_at').on('location_shares').column('shared_at').execute();
      // Links in emails already sent are of no more use to anyone but whoever reads the table.
      const sent = await sql<{ id: number; body_text: string }>`select id, body_text from email_outbox
        where sent_at is not null or failed_at is not null`.execute(db);
      for (const row of sent.rows) {
        await sql`update email_outbox set body_text = ${withoutSecrets(row.body_text)} where id = ${row.id}`.execute(
          db,
        );
      }
    },
  },
  '2026-11-24-01-outcomes': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('deletion_requests')
        .addColumn('extended_months', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', isPostgres(db) ? 'serial' : 'integer', (column) => column.primaryKey())
        .addColumn('event_id', 'varchar(36)', (column) => column.notNull().unique())
        .addColumn('reference', 'varchar(32)', (column) => column.notNull())
        .addColumn('type', 'varchar(16)', (column) => column.notNull())
        .addColumn('payload', 'text', (column) => column.notNull())
        .addColumn('created_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('delivered_at', 'varchar(32)')
        .addColumn('failed_at', 'varchar(32)')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['delivered_at', 'failed_at', 'next_attempt_at'])
        .execute();
    },
  },
  '2026-11-24-02-several-instances': {
    async up(db: Kysely<unknown>) {
      // Several instances share one PostgreSQL: the rate limits live there (rate-limiter-flexible's table, with a
      // key long enough for any address), so that every instance counts the same and a restart forgets nothing.
      if (isPostgres(db)) {
        await db.schema
          .createTable('rate_limits')
          .addColumn('key', 'text', (column) => column.primaryKey())
          .addColumn('points', 'integer', (column) => column.notNull().defaultTo(0))
          .addColumn('expire', 'bigint')
          .execute();
        await db.schema.createIndex('rate_limits_expire').on('rate_limits').column('expire').execute();
      }
      // A worker claims due rows until its lease runs out; another takes them after that.
      for (const table of ['email_outbox', 'webhook_deliveries']) {
        await db.schema.alterTable(table).addColumn('claimed_until', 'varchar(32)').execute();
      }
      // Jobs that one instance at a time runs (the hourly purge): who holds each, and until when.
      await db.schema
        .createTable('leases')
        .addColumn('name', 'varchar(64)', (column) => column.primaryKey())
        .addColumn('holder', 'varchar(128)')
        .addColumn('until', 'varchar(32)', (column) => column.notNull())
        .execute();
      await sql`insert into leases (name, holder, until) values ('hourly-purge', null, '1970-01-01T00:00:00.000Z')`.execute(
        db,
      );
    },
  },
  '2026-11-25-01-mailbox-cap': {
    async up(db: Kysely<unknown>) {
      // The cap on confirmation mails counts per mailbox, not per stored address: a row per mailbox, changed by one
      // compare-and-set, so that submits for `v+1@` and `v+2@` arriving together send one mail.
      await db.schema
        .createTable('confirmation_mailboxes')
        .addColumn('mailbox', 'varchar(64)', (column) => column.primaryKey())
        .addColumn('last_sent_at', 'varchar(32)')
        .addColumn('day_started_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('sent_in_day', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  },
  '2026-11-25-02-field-data': {
    async up(db: Kysely<unknown>) {
      const tags = (table: CreateTableBuilder<string, never>) =>
        table
          .addColumn('id', isPostgres(db) ? 'bigserial' : 'integer', (column) => column.primaryKey())
          .addColumn('received_at', 'varchar(32)', (column) => column.notNull())
          .addColumn('route', 'varchar(100)', (column) => column.notNull())
          .addColumn('remote', 'varchar(40)', (column) => column.notNull())
          .addColumn('version', 'varchar(100)', (column) => column.notNull());
      await tags(db.schema.createTable('field_views'))
        .addColumn('shell', 'varchar(100)', (column) => column.notNull())
        .addColumn('viewport', 'varchar(8)', (column) => column.notNull())
        .addColumn('counted', 'smallint', (column) => column.notNull())
        .addColumn('lcp', isPostgres(db) ? 'double precision' : 'real')
        .addColumn('inp', isPostgres(db) ? 'double precision' : 'real')
        .addColumn('cls', isPostgres(db) ? 'double precision' : 'real')
        .addColumn('fcp', isPostgres(db) ? 'double precision' : 'real')
        .addColumn('ttfb', isPostgres(db) ? 'double precision' : 'real')
        .execute();
      await tags(db.schema.createTable('field_errors'))
        .addColumn('message', 'varchar(300)', (column) => column.notNull())
        .addColumn('frame', 'varchar(300)')
        .addColumn('count', 'integer', (column) => column.notNull())
        .execute();
      for (const table of ['field_views', 'field_errors']) {
        await db.schema.createIndex(`${table}_received`).on(table).column('received_at').execute();
        // What the release watch and `rum --remote` read: one version of one remote over a window.
        await db.schema
          .createIndex(`${table}_release`)
          .on(table)
          .columns(['remote', 'version', 'received_at'])
          .execute();
      }
      await db.schema
        .createTable('field_hours')
        .addColumn('hour', 'varchar(32)', (column) => column.notNull())
        .addColumn('remote', 'varchar(40)', (column) => column.notNull())
        .addColumn('version', 'varchar(100)', (column) => column.notNull())
        .addColumn('route', 'varchar(100)', (column) => column.notNull())
        .addColumn('kind', 'varchar(8)', (column) => column.notNull())
        .addColumn('name', 'varchar(300)', (column) => column.notNull())
        .addColumn('count', 'integer', (column) => column.notNull())
        .addColumn('p75', isPostgres(db) ? 'double precision' : 'real')
        .addColumn('p95', isPostgres(db) ? 'double precision' : 'real')
        .addPrimaryKeyConstraint('field_hours_key', ['hour', 'remote', 'version', 'route', 'kind', 'name'])
        .execute();
      // `release.rolled_back` (the release watch's event) is longer than the deletion events' types.
      if (isPostgres(db)) {
        await db.schema
          .alterTable('webhook_deliveries')
          .alterColumn('type', (column) => column.setDataType('varchar(40)'))
          .execute();
      }
    },
  },
  '2026-11-26-01-releases': {
    async up(db: Kysely<unknown>) {
      // With PostgreSQL the releases of the remotes live here, the truth every site server follows (LISTEN
      // site_releases); without it, the manifest file and its JSON lines stay the truth, and these tables are not made.
      if (!isPostgres(db)) return;
      await db.schema
        .createTable('site_releases')
        .addColumn('remote', 'varchar(40)', (column) => column.notNull())
        .addColumn('version', 'varchar(100)', (column) => column.notNull())
        .addColumn('entry', 'text', (column) => column.notNull())
        // Every file of the build with its SHA-256, as published: a site server refuses a fetched file that differs.
        .addColumn('files', 'text', (column) => column.notNull())
        .addColumn('verdict', 'text')
        .addColumn('published_by', 'varchar(64)', (column) => column.notNull())
        .addColumn('published_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('live', 'boolean', (column) => column.notNull().defaultTo(false))
        .addColumn('switched_at', 'varchar(32)')
        .addPrimaryKeyConstraint('site_releases_key', ['remote', 'version'])
        .execute();
      // One live version per remote, whatever two commands at once do.
      await sql`create unique index site_releases_one_live on site_releases (remote) where live`.execute(db);
      await db.schema
        .createTable('site_release_events')
        .addColumn('id', 'bigserial', (column) => column.primaryKey())
        .addColumn('remote', 'varchar(40)', (column) => column.notNull())
        .addColumn('version', 'varchar(100)', (column) => column.notNull())
        .addColumn('event', 'varchar(16)', (column) => column.notNull())
        .addColumn('detail', 'text', (column) => column.notNull())
        .addColumn('who', 'varchar(64)', (column) => column.notNull())
        .addColumn('at', 'varchar(32)', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('site_release_events_remote').on('site_release_events').column('remote').execute();
    },
  },
  '2026-11-26-02-field-data-trust': {
    async up(db: Kysely<unknown>) {
      // Which reports a decision may count: the network a report came from (a keyed hash of its /24 or /48, the key
      // a new one each day), the ticket of the page view the site served (its nonce, when valid), the errors it
      // carried, and how many reports it stands for (1, or more while the storage budget samples).
      // Small on disk: a report is a row of its own, a million a few hundred megabytes.
      const small = isPostgres(db) ? 'smallint' : 'integer';
      await db.schema
        .alterTable('field_views')
        .addColumn('network', 'varchar(12)', (column) => column.notNull().defaultTo(''))
        .execute();
      await db.schema.alterTable('field_views').addColumn('ticket', 'varchar(12)').execute();
      await db.schema
        .alterTable('field_views')
        .addColumn('errors', small, (column) => column.notNull().defaultTo(0))
        .execute();
      for (const table of ['field_views', 'field_errors']) {
        await db.schema
          .alterTable(table)
          .addColumn('weight', small, (column) => column.notNull().defaultTo(1))
          .execute();
      }
      await db.schema
        .createTable('field_network_keys')
        .addColumn('day', 'varchar(10)', (column) => column.primaryKey())
        .addColumn('key', 'varchar(64)', (column) => column.notNull())
        .execute();
    },
  },
  '2026-11-26-03-rollouts': {
    async up(db: Kysely<unknown>) {
      // A staged rollout of a remote (PostgreSQL only, beside the releases): one row per rollout under way, its state
      // as JSON; changed in the same transaction as the release events and announced by the same NOTIFY.
      if (!isPostgres(db)) return;
      await db.schema
        .createTable('site_rollouts')
        .addColumn('remote', 'varchar(40)', (column) => column.primaryKey())
        .addColumn('version', 'varchar(100)', (column) => column.notNull())
        .addColumn('state', 'text', (column) => column.notNull())
        .execute();
    },
  },
  '2026-11-27-01-counted-views': {
    async up(db: Kysely<unknown>) {
      // What the release watch reads at each look: the ticketed rows of one version over a window, without touching
      // the unticketed ones beside them, however many a flood left.
      await sql`create index field_views_ticketed on field_views (remote, version, received_at, ticket)
        where ticket is not null`.execute(db);
    },
  },
  '2026-11-27-02-networks-across-midnight': {
    async up(db: Kysely<unknown>) {
      // A report's network hashed with the keys of its day and of the two days before (each key goes with the raw
      // reports of its day): one network is one hash over a window of up to 48 hours, across midnight.
      for (const column of ['network_1', 'network_2']) {
        await db.schema
          .alterTable('field_views')
          .addColumn(column, 'varchar(12)', (col) => col.notNull().defaultTo(''))
          .execute();
      }
    },
  },
  '2026-11-28-01-claim-holders': {
    async up(db: Kysely<unknown>) {
      // Who holds each claim of the queues: an instance that starts again takes back its own at once instead of
      // waiting for their lease to lapse.
      for (const table of ['email_outbox', 'webhook_deliveries']) {
        await db.schema.alterTable(table).addColumn('claimed_by', 'varchar(128)').execute();
      }
    },
  },
  '2026-11-28-02-goals': {
    async up(db: Kysely<unknown>) {
      // A beacon that says its view reached one of its page's goals (a store button, the vendor portal, a deletion
      // request accepted), which an experiment counts as a conversion of that view.
      await db.schema.alterTable('field_views').addColumn('goal', 'varchar(40)').execute();
    },
  },
  '2026-11-28-03-goal-days': {
    async up(db: Kysely<unknown>) {
      // An experiment runs for days; raw reports are kept 48 hours. Each day's counted views and conversions per
      // network are kept instead, the network named alike across days.
      await db.schema
        .createTable('field_goal_days')
        .addColumn('day', 'varchar(10)', (column) => column.notNull())
        .addColumn('remote', 'varchar(40)', (column) => column.notNull())
        .addColumn('version', 'varchar(100)', (column) => column.notNull())
        .addColumn('goal', 'varchar(40)', (column) => column.notNull())
        .addColumn('network', 'varchar(16)', (column) => column.notNull())
        .addColumn('views', 'integer', (column) => column.notNull())
        .addColumn('conversions', 'integer', (column) => column.notNull())
        .addPrimaryKeyConstraint('field_goal_days_key', ['remote', 'version', 'goal', 'day', 'network'])
        .execute();
      await db.schema
        .createTable('field_network_chains')
        .addColumn('day', 'varchar(10)', (column) => column.notNull())
        .addColumn('hash', 'varchar(16)', (column) => column.notNull())
        .addColumn('chain', 'varchar(16)', (column) => column.notNull())
        .addPrimaryKeyConstraint('field_network_chains_key', ['day', 'hash'])
        .execute();
    },
  },
  '2026-12-02-01-counted-views': {
    async up(db: Kysely<unknown>) {
      // Each view the site vouched for as one row that its reports add up into, and each goal a view reached as one
      // row: a look reads these, whose size follows the views served, not the reports anyone sends. The raw rows'
      // ticketed index goes (nothing reads it now); their goal rows go to field_goals.
      const real = isPostgres(db) ? 'double precision' : 'real';
      const small = isPostgres(db) ? 'smallint' : 'integer';
      await db.schema
        .createTable('field_counted')
        .addColumn('remote', 'varchar(40)', (column) => column.notNull())
        .addColumn('version', 'varchar(100)', (column) => column.notNull())
        .addColumn('ticket', 'varchar(12)', (column) => column.notNull())
        .addColumn('route', 'varchar(100)', (column) => column.notNull())
        .addColumn('received_at', 'varchar(32)', (column) => column.notNull())
        .addColumn('network', 'varchar(12)', (column) => column.notNull())
        .addColumn('network_1', 'varchar(12)', (column) => column.notNull())
        .addColumn('network_2', 'varchar(12)', (column) => column.notNull())
        .addColumn('counted', small, (column) => column.notNull())
        .addColumn('erred', small, (column) => column.notNull())
        .addColumn('inp', real)
        .addColumn('lcp', real)
        .addPrimaryKeyConstraint('field_counted_key', ['remote', 'version', 'ticket'])
        .execute();
      await db.schema
        .createIndex('field_counted_window')
        .on('field_counted')
        .columns(['remote', 'version', 'received_at'])
        .execute();
      await db.schema.createIndex('field_counted_received').on('field_counted').column('received_at').execute();
      await db.schema
        .createTable('field_goals')
        .addColumn('remote', 'varchar(40)', (column) => column.notNull())
        .addColumn('version', 'varchar(100)', (column) => column.notNull())
        .addColumn('ticket', 'varchar(12)', (column) => column.notNull())
        .addColumn('goal', 'varchar(40)', (column) => column.notNull())
        .addColumn('received_at', 'varchar(32)', (column) => column.notNull())
        .addPrimaryKeyConstraint('field_goals_key', ['remote', 'version', 'goal', 'ticket'])
        .execute();
      await db.schema.createIndex('field_goals_received').on('field_goals').column('received_at').execute();
      // What was stored before, added up alike (the first network of a view by name rather than by time, once).
      await sql`insert into field_counted (remote, version, ticket, route, received_at, network, network_1, network_2,
          counted, erred, inp, lcp)
        select remote, version, ticket, min(route), min(received_at), min(network), min(network_1), min(network_2),
          max(counted), max(case when errors > 0 then 1 else 0 end), max(inp), max(lcp)
        from field_views where ticket is not null and goal is null group by remote, version, ticket`.execute(db);
      await sql`insert into field_goals (remote, version, ticket, goal, received_at)
        select remote, version, ticket, goal, min(received_at) from field_views
        where ticket is not null and goal is not null group by remote, version, ticket, goal`.execute(db);
      await sql`delete from field_views where goal is not null`.execute(db);
      await sql`drop index field_views_ticketed`.execute(db);
    },
  },
  '2026-12-03-01-assigned-views': {
    async up(db: Kysely<unknown>) {
      // A view on which its visitor was assigned its arms (a new visitor during a rollout or experiment): the sample
      // ratio check counts these, a visitor once. Views stored before count as not assigned.
      for (const table of ['field_counted', 'field_goal_days']) {
        await db.schema
          .alterTable(table)
          .addColumn('assigned', 'integer', (column) => column.notNull().defaultTo(0))
          .execute();
      }
    },
  },
  '2026-12-08-01-email-end-written': {
    async up(db: Kysely<unknown>) {
      // When a worker was about to write an email's end (the message whole at the mail server): from then on the
      // email may have been delivered, and it is never sent again blindly.
      await db.schema.alterTable('email_outbox').addColumn('end_written_at', 'varchar(32)').execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<Database>) {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}

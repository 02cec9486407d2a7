import { userInfo } from 'node:os';
import { sql } from 'kysely';
import { parseArgs } from 'node:util';
import { readConfig } from '../config.ts';
import { databaseName, openMigratedDatabase, type Db } from '../db/database.ts';
import { requestStatuses, type RequestStatus } from '../db/schema.ts';
import { clock, daysLeft } from '../deletion-requests/deadline.ts';
import { deletionRequests, TransitionError, type DeletionRequest } from '../deletion-requests/repository.ts';
import { locationShares } from '../location-shares/repository.ts';
import { withoutSecrets } from '../mail/secrets.ts';
import { resendWebhook } from '../webhooks/delivery.ts';
import { printable, printableJson } from './printable.ts';
import { counted } from '../words.ts';

const usage = `Operators' tool for account deletion requests.

  pnpm --filter api requests list [--all] [--due-within <days>]
                                                   open requests, oldest first, with their deadline and the
                                                   days left (OVERDUE once it has passed)
  pnpm --filter api requests show <reference>      one request, its deadline, audit trail, emails and events
  pnpm --filter api requests start <reference>     verified -> in_progress
  pnpm --filter api requests complete <reference> [--note "..."]     emails the requester what was deleted
  pnpm --filter api requests reject <reference> --note "why"         emails the requester the reason
  pnpm --filter api requests extend <reference> --by 1|2 --reason "why"
                                                   moves the deadline by 1 or 2 months (2 in all, only in the
                                                   first month) and emails the requester the reason
  pnpm --filter api requests export [--format csv|json] [--all]
  pnpm --filter api requests outbox [--json]       emails queued and sent (newest first), links hidden
  pnpm --filter api requests outbox <id>           one email as sent, its link hidden
  pnpm --filter api requests outbox send-now       every email waiting (not given up) is due now, whatever its
                                                   next try's time: after an outage of the mail server
  pnpm --filter api requests webhooks [--json]     events for WEBHOOK_URL, newest first, delivered or not
  pnpm --filter api requests webhooks resend <id>  try a delivery again now, with a fresh count of tries
  pnpm --filter api requests webhooks send-now     every event waiting (not given up) is due now
  pnpm --filter api requests purge                 delete unconfirmed requests older than UNVERIFIED_PURGE_DAYS
                                                   and shared locations older than LOCATION_RETENTION_DAYS

Options: --by <name> records who made a change (default: the system user); for extend, --by is the months.
Uses the same DATABASE_URL / DATA_DIR as the service.`;

/**
 * Makes every message of a queue that waits (neither sent nor given up) due now, keeping its count of tries: after a
 * long outage of the mail server or the receiver, what waits is sent at the workers' next look rather than at the end
 * of its backoff (up to an hour). A message a worker holds now is left to it. Resolves with how many were made due.
 */
export async function sendWaitingNow(db: Db, table: 'email_outbox' | 'webhook_deliveries', now = new Date()) {
  const done = table === 'email_outbox' ? 'sent_at' : 'delivered_at';
  // An email whose end was written may have been delivered: not "waiting", and not sent again from here.
  const query = db
    .updateTable(table)
    .set({ next_attempt_at: now.toISOString() })
    .where(done, 'is', null)
    .where('failed_at', 'is', null)
    .where('next_attempt_at', '>', now.toISOString())
    .where((where) => where.or([where('claimed_until', 'is', null), where('claimed_until', '<', now.toISOString())]));
  const result = await (
    table === 'email_outbox' ? query.where(sql.ref('end_written_at'), 'is', null) : query
  ).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const moves: Record<string, RequestStatus> = { start: 'in_progress', complete: 'completed', reject: 'rejected' };

/**
 * A CSV cell, quoted always, a spreadsheet formula in free text neutralised: a cell that starts with = + - @, a tab or
 * a carriage return, or their full-width forms (＝ ＋ － ＠, which spreadsheets with East Asian input read as the
 * same), gets a leading apostrophe (OWASP's CSV injection advice).
 */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return `"${value}"`;
  const text = printable(value, { multiline: true });
  const safe = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

const isOpen = (request: DeletionRequest) => request.status !== 'completed' && request.status !== 'rejected';

/** Days left of an open request's deadline; null once it is closed. */
const daysLeftOf = (request: DeletionRequest, now = new Date()) => (isOpen(request) ? daysLeft(request, now) : null);

export function toCsv(requests: DeletionRequest[], now = new Date()): string {
  const header = [
    'reference',
    'status',
    'received_at',
    'verified_at',
    'deadline',
    'days_left',
    'name',
    'email',
    'reason',
  ];
  const rows = requests.map((request) =>
    [
      request.reference,
      request.status,
      request.receivedAt,
      request.verifiedAt ?? '',
      request.deadline,
      daysLeftOf(request, now) ?? '',
      request.name,
      request.email,
      request.reason,
    ]
      .map(csvCell)
      .join(','),
  );
  return [header.join(','), ...rows].join('\n') + '\n';
}

async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      all: { type: 'boolean', default: false },
      note: { type: 'string' },
      by: { type: 'string' },
      format: { type: 'string', default: 'csv' },
      'due-within': { type: 'string' },
      reason: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, reference] = positionals;
  if (!command || values.help) {
    console.log(usage);
    return command ? 0 : 1;
  }

  const config = readConfig();
  // On standard error, so that an export piped to a file stays the export alone.
  console.error(`Database: ${databaseName(config)}`);
  const db = await openMigratedDatabase(config);
  const requests = deletionRequests(db, { webhooks: Boolean(config.webhookUrl) });
  try {
    if (command === 'list') {
      const dueWithin = values['due-within'] === undefined ? undefined : Number(values['due-within']);
      if (dueWithin !== undefined && !Number.isInteger(dueWithin)) {
        console.error(`--due-within takes a number of days, not "${values['due-within']}".`);
        return 2;
      }
      const list = (await requests.list({ openOnly: !values.all })).filter(
        (request) => dueWithin === undefined || (isOpen(request) && daysLeft(request) <= dueWithin),
      );
      if (list.length === 0) {
        console.log(
          dueWithin !== undefined
            ? `No open request is due within ${dueWithin} days.`
            : values.all
              ? 'No requests.'
              : 'No open requests.',
        );
      } else {
        console.log('reference      status       received          deadline          clock         email');
      }
      for (const request of list) {
        console.log(
          `${request.reference}  ${request.status.padEnd(11)}  ${request.receivedAt.slice(0, 16)}  ${request.deadline.slice(0, 16)}  ${clock(request).padEnd(12)}  ${printable(request.email)}${request.verifiedAt ? '' : '  (not yet confirmed)'}`,
        );
      }
      return 0;
    }
    if ((command === 'outbox' || command === 'webhooks') && reference === 'send-now') {
      const due = await sendWaitingNow(db, command === 'outbox' ? 'email_outbox' : 'webhook_deliveries');
      const [one, many] = command === 'outbox' ? ['email', 'emails'] : ['webhook event', 'webhook events'];
      console.log(
        due === 0
          ? `No ${many} waiting.`
          : `${counted(due, one, many)} due now: the running service sends ${due === 1 ? 'it' : 'them'} within ${Math.ceil(config.outboxIntervalMs / 1000)} s (its next look).`,
      );
      return 0;
    }
    if (command === 'webhooks') {
      if (reference === 'resend') {
        const id = Number(positionals[2]);
        if (!Number.isInteger(id) || !(await resendWebhook(db, id))) {
          console.error(`No webhook delivery ${positionals[2] ?? ''}.`);
          return 1;
        }
        console.log(`Delivery ${id} will be tried again within seconds.`);
        return 0;
      }
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(200)
        .execute();
      if (values.json) {
        console.log(printableJson(deliveries));
        return 0;
      }
      if (!config.webhookUrl) console.log('WEBHOOK_URL is not set: no events are queued.');
      if (deliveries.length === 0) console.log('No webhook events.');
      for (const delivery of deliveries) {
        const state = delivery.delivered_at
          ? 'delivered'
          : delivery.failed_at
            ? `GAVE UP: ${printable(delivery.last_error ?? '')}`
            : `waiting (${delivery.attempts} tries${delivery.last_error ? `, ${printable(delivery.last_error)}` : ''})`;
        console.log(
          `${String(delivery.id).padStart(5)}  ${delivery.created_at.slice(0, 16)}  ${delivery.reference}  ${delivery.type.padEnd(11)}  ${state}`,
        );
      }
      return 0;
    }
    if (command === 'outbox') {
      if (reference) {
        const email = await db
          .selectFrom('email_outbox')
          .selectAll()
          .where('id', '=', Number(reference))
          .executeTakeFirst();
        if (!email) {
          console.error(`No email ${reference}.`);
          return 1;
        }
        console.log(
          `To: ${printable(email.to_address)}\nSubject: ${printable(email.subject)}\nQueued: ${email.created_at}\nSent: ${email.sent_at ?? 'not yet'}\n\n${printable(withoutSecrets(email.body_text), { multiline: true })}`,
        );
        return 0;
      }
      const emails = await db.selectFrom('email_outbox').selectAll().orderBy('id', 'desc').limit(200).execute();
      if (values.json) {
        console.log(
          printableJson(
            emails.map((email) => ({
              ...email,
              body_text: withoutSecrets(email.body_text),
            })),
          ),
        );
        return 0;
      }
      if (emails.length === 0) console.log('The outbox is empty.');
      for (const email of emails) {
        const state = email.sent_at
          ? 'sent'
          : email.failed_at
            ? `FAILED: ${printable(email.last_error ?? '')}`
            : `waiting (${email.attempts} tries${email.last_error ? `, ${printable(email.last_error)}` : ''})`;
        console.log(
          `${String(email.id).padStart(5)}  ${email.created_at.slice(0, 16)}  ${state.padEnd(20)}  ${printable(email.to_address)}  ${printable(email.subject)}`,
        );
      }
      return 0;
    }
    if (command === 'purge') {
      const purged = await requests.purgeUnverified(config.unverifiedPurgeDays);
      console.log(`Purged ${purged} unconfirmed request(s) older than ${config.unverifiedPurgeDays} days.`);
      const expired = await locationShares(db).purgeOlderThan(config.locationRetentionDays);
      console.log(`Deleted ${expired} shared location(s) older than ${config.locationRetentionDays} days.`);
      return 0;
    }
    if (command === 'export') {
      const list = await requests.list({ openOnly: !values.all });
      if (values.format === 'json') {
        console.log(printableJson(list.map((request) => ({ ...request, daysLeft: daysLeftOf(request) }))));
      } else if (values.format === 'csv') {
        process.stdout.write(toCsv(list));
      } else {
        console.error(`Unknown format "${values.format}": use csv or json.`);
        return 2;
      }
      return 0;
    }
    if (!reference) {
      console.error(`"${command}" needs a request reference.\n\n${usage}`);
      return 2;
    }
    if (command === 'show') {
      const request = await requests.get(reference);
      if (!request) {
        console.error(`No request ${reference}.`);
        return 1;
      }
      const { events, ...fields } = request;
      const shown = { ...fields, clock: clock(request) };
      for (const [field, value] of Object.entries(shown)) {
        const text = printable(String(value ?? '-'), { multiline: true }).replaceAll('\n', '\n    ');
        console.log(`${`${field}:`.padEnd(23)} ${text}`);
      }
      console.log('Audit trail:');
      for (const event of events) {
        const note = event.note ? `: ${printable(event.note)}` : '';
        console.log(
          `  ${event.at}  ${event.fromStatus ?? '-'} -> ${event.toStatus}  by ${printable(event.actor)}${note}`,
        );
      }
      const emails = await db
        .selectFrom('email_outbox')
        .select(['id', 'subject', 'created_at', 'sent_at', 'failed_at'])
        .where('reference', '=', reference)
        .orderBy('id')
        .execute();
      console.log('Emails:');
      for (const email of emails) {
        const state = email.sent_at ? `sent ${email.sent_at}` : email.failed_at ? 'FAILED' : 'waiting';
        console.log(
          `  ${String(email.id).padStart(5)}  ${email.created_at}  ${state.padEnd(29)}  ${printable(email.subject)}`,
        );
      }
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'type', 'created_at', 'delivered_at', 'failed_at', 'attempts'])
        .where('reference', '=', reference)
        .orderBy('id')
        .execute();
      if (deliveries.length) console.log('Webhook events:');
      for (const delivery of deliveries) {
        const state = delivery.delivered_at
          ? 'delivered'
          : delivery.failed_at
            ? 'GAVE UP'
            : `waiting (${delivery.attempts} tries)`;
        console.log(
          `  ${String(delivery.id).padStart(5)}  ${delivery.created_at}  ${delivery.type.padEnd(11)}  ${state}`,
        );
      }
      return 0;
    }
    if (command === 'extend') {
      const by = Number(values.by === undefined ? NaN : values.by);
      if (!values.reason) {
        console.error('An extension needs a --reason: it is emailed to the requester.');
        return 2;
      }
      const { deadline } = await requests.extend(reference, by, { reason: values.reason, actor: userInfo().username });
      console.log(`${reference} is now due by ${deadline.toISOString().slice(0, 16)}; the requester is told why.`);
      return 0;
    }
    const to = moves[command];
    if (!to) {
      console.error(`Unknown command "${command}".\n\n${usage}`);
      return 2;
    }
    if (to === 'rejected' && !values.note) {
      console.error('A rejection needs a --note saying why.');
      return 2;
    }
    await requests.transition(reference, to, { note: values.note, actor: values.by ?? userInfo().username });
    console.log(`${reference} is now ${to}.`);
    return 0;
  } catch (error) {
    if (error instanceof TransitionError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.argv.slice(2));
}

export { main, requestStatuses };

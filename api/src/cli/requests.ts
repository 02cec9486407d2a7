import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { readConfig } from '../config.ts';
import { openMigratedDatabase } from '../db/database.ts';
import { requestStatuses, type RequestStatus } from '../db/schema.ts';
import { deletionRequests, TransitionError, type DeletionRequest } from '../deletion-requests/repository.ts';
import { locationShares } from '../location-shares/repository.ts';
import { withoutSecrets } from '../mail/secrets.ts';
import { printable, printableJson } from './printable.ts';

const usage = `Operators' tool for account deletion requests.

  pnpm --filter api requests list [--all]          open requests, oldest first, with days left since
                                                   received and since verified (confirmed by the owner)
  pnpm --filter api requests show <reference>      one request and its audit trail
  pnpm --filter api requests start <reference>     verified -> in_progress
  pnpm --filter api requests complete <reference> [--note "..."]
  pnpm --filter api requests reject <reference> --note "why"
  pnpm --filter api requests export [--format csv|json] [--all]
  pnpm --filter api requests outbox [--json]       emails queued and sent (newest first), links hidden
  pnpm --filter api requests outbox <id>           one email as sent, its link hidden
  pnpm --filter api requests purge                 delete unconfirmed requests older than UNVERIFIED_PURGE_DAYS
                                                   and shared locations older than LOCATION_RETENTION_DAYS

Options: --by <name> records who made a change (default: the system user).
Uses the same DATABASE_URL / DATA_DIR as the service.`;

const moves: Record<string, RequestStatus> = { start: 'in_progress', complete: 'completed', reject: 'rejected' };

/** Days left of the deadline counted from `since` (received or verified time). */
export function daysLeftSince(since: string, deadlineDays: number, now = new Date()): number {
  const deadline = new Date(since).getTime() + deadlineDays * 86_400_000;
  return Math.ceil((deadline - now.getTime()) / 86_400_000);
}

export const daysLeft = (request: DeletionRequest, deadlineDays: number, now = new Date()) =>
  daysLeftSince(request.receivedAt, deadlineDays, now);

function clock(since: string | null, deadlineDays: number) {
  if (!since) return '-';
  const left = daysLeftSince(since, deadlineDays);
  return left < 0 ? `OVERDUE ${-left}d` : `${left}d left`;
}

function csvCell(value: string | number): string {
  const text = printable(String(value), { multiline: true });
  // Quote always; neutralise spreadsheet formulas in free text.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function toCsv(requests: DeletionRequest[], deadlineDays: number, now = new Date()): string {
  const header = ['reference', 'status', 'received_at', 'verified_at', 'days_left', 'name', 'email', 'reason'];
  const rows = requests.map((request) =>
    [
      request.reference,
      request.status,
      request.receivedAt,
      request.verifiedAt ?? '',
      daysLeftSince(request.verifiedAt ?? request.receivedAt, deadlineDays, now),
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
  const db = await openMigratedDatabase(config);
  const requests = deletionRequests(db);
  try {
    if (command === 'list') {
      const list = await requests.list({ openOnly: !values.all });
      if (list.length === 0) console.log(values.all ? 'No requests.' : 'No open requests.');
      else
        console.log(
          'reference      status       received (clock)                verified (clock)                email',
        );
      for (const request of list) {
        const received = `${request.receivedAt.slice(0, 16)} (${clock(request.receivedAt, config.deadlineDays)})`;
        const verified = request.verifiedAt
          ? `${request.verifiedAt.slice(0, 16)} (${clock(request.verifiedAt, config.deadlineDays)})`
          : 'not yet confirmed';
        console.log(
          `${request.reference}  ${request.status.padEnd(11)}  ${received.padEnd(30)}  ${verified.padEnd(30)}  ${printable(request.email)}`,
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
        console.log(printableJson(emails.map((email) => ({ ...email, body_text: withoutSecrets(email.body_text) }))));
        return 0;
      }
      if (emails.length === 0) console.log('The outbox is empty.');
      for (const email of emails) {
        const state = email.sent_at
          ? 'sent'
          : email.failed_at
            ? `FAILED: ${printable(email.last_error ?? '')}`
            : `waiting (${email.attempts} tries)`;
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
        console.log(
          printableJson(list.map((request) => ({ ...request, daysLeft: daysLeft(request, config.deadlineDays) }))),
        );
      } else if (values.format === 'csv') {
        process.stdout.write(toCsv(list, config.deadlineDays));
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
      const shown = {
        ...fields,
        daysLeftSinceReceived: daysLeft(request, config.deadlineDays),
        daysLeftSinceVerified: request.verifiedAt ? daysLeftSince(request.verifiedAt, config.deadlineDays) : null,
      };
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

import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { readConfig } from '../config.ts';
import { openMigratedDatabase } from '../db/database.ts';
import { requestStatuses, type RequestStatus } from '../db/schema.ts';
import { deletionRequests, TransitionError, type DeletionRequest } from '../deletion-requests/repository.ts';

const usage = `Operators' tool for account deletion requests.

  pnpm --filter api requests list [--all]          open requests, oldest first, with days left
  pnpm --filter api requests show <reference>      one request and its audit trail
  pnpm --filter api requests start <reference>     received -> in_progress
  pnpm --filter api requests complete <reference> [--note "..."]
  pnpm --filter api requests reject <reference> --note "why"
  pnpm --filter api requests export [--format csv|json] [--all]

Options: --by <name> records who made a change (default: the system user).
Uses the same DATABASE_URL / DATA_DIR as the service.`;

const moves: Record<string, RequestStatus> = { start: 'in_progress', complete: 'completed', reject: 'rejected' };

export function daysLeft(request: DeletionRequest, deadlineDays: number, now = new Date()): number {
  const deadline = new Date(request.receivedAt).getTime() + deadlineDays * 86_400_000;
  return Math.ceil((deadline - now.getTime()) / 86_400_000);
}

function csvCell(value: string | number): string {
  const text = String(value);
  // Quote always; neutralise spreadsheet formulas in free text.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

export function toCsv(requests: DeletionRequest[], deadlineDays: number, now = new Date()): string {
  const header = ['reference', 'status', 'received_at', 'days_left', 'name', 'email', 'reason'];
  const rows = requests.map((request) =>
    [
      request.reference,
      request.status,
      request.receivedAt,
      daysLeft(request, deadlineDays, now),
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
      for (const request of list) {
        const left = daysLeft(request, config.deadlineDays);
        const due = left < 0 ? `OVERDUE by ${-left} days` : `${left} days left`;
        console.log(
          `${request.reference}  ${request.status.padEnd(11)}  ${request.receivedAt}  ${due.padEnd(18)}  ${request.email}`,
        );
      }
      return 0;
    }
    if (command === 'export') {
      const list = await requests.list({ openOnly: !values.all });
      if (values.format === 'json') {
        console.log(
          JSON.stringify(
            list.map((request) => ({ ...request, daysLeft: daysLeft(request, config.deadlineDays) })),
            null,
            2,
          ),
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
      console.log({ ...fields, daysLeft: daysLeft(request, config.deadlineDays) });
      console.log('Audit trail:');
      for (const event of events) {
        console.log(
          `  ${event.at}  ${event.fromStatus ?? '-'} -> ${event.toStatus}  by ${event.actor}${event.note ? `: ${event.note}` : ''}`,
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

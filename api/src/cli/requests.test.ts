import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseName, type Db } from '../db/database.ts';
import { deletionRequests } from '../deletion-requests/repository.ts';
import { sqliteDatabase } from '../../test/databases.ts';
import { csvCell, main } from './requests.ts';

/** What an operator's terminal would receive from one CLI command. */
async function terminal(...args: string[]): Promise<string> {
  const chunks: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts) => void chunks.push(parts.join(' ')));
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (chunks.push(String(chunk)), true));
  try {
    expect(await main(args)).toBe(0);
  } finally {
    log.mockRestore();
    write.mockRestore();
  }
  return chunks.join('\n');
}

// Clear the screen, write the clipboard, a one-byte CSI, text that reads backwards, a bell.
const hostile = 'Ann\u001b[2J\u001b]52;c;cm0gLXJmIH4=\u0007 \u009b31m \u202eevil';
let db: Db;
let reference: string;

beforeAll(async () => {
  const opened = await sqliteDatabase();
  db = opened.db;
  process.env.DATA_DIR = opened.dataDir;
  ({ reference } = await deletionRequests(db).submit({ name: 'Ann', email: 'ann@example.com', reason: 'r' }));
  // Rows written before the API refused control characters, or by anything else that writes the table.
  await db
    .updateTable('deletion_requests')
    .set({ name: hostile, reason: `bye\n${hostile}` })
    .execute();
  await db.updateTable('email_outbox').set({ subject: hostile }).execute();
});
afterEach(() => vi.restoreAllMocks());

describe('the operators’ CLI', () => {
  it.each([
    ['show', () => ['show', reference]],
    ['list', () => ['list']],
    ['the outbox', () => ['outbox']],
    ['one email', () => ['outbox', '1']],
    ['the outbox as JSON', () => ['outbox', '--json']],
    ['the JSON export', () => ['export', '--format', 'json']],
    ['the CSV export', () => ['export']],
  ])('prints no control character a request carried, in %s', async (_name, args) => {
    const output = await terminal(...args());
    // Any control character but a line break or a tab, or a mark that reorders text.
    expect(output).not.toMatch(/[^\P{Cc}\n\t]|[\u202a-\u202e]/u);
  });

  it('neutralises a spreadsheet formula at the start of a CSV cell, in its full-width forms too', () => {
    for (const formula of ['=HYPERLINK("x")', '+1', '-1', '@SUM(A1)', '＝HYPERLINK("x")', '＋1', '－1', '＠SUM(A1)']) {
      expect(csvCell(formula), formula).toBe(`"'${formula.replace(/"/g, '""')}"`);
    }
    expect(csvCell('Please delete my account = now')).toBe('"Please delete my account = now"');
  });

  it('prints JSON that parses back to what is stored', async () => {
    const [request] = JSON.parse(await terminal('export', '--format', 'json'));
    expect(request.name).toBe(hostile);
    const emails = JSON.parse(await terminal('outbox', '--json'));
    expect(emails[0].subject).toBe(hostile);
  });

  it('shows what a control character was, so the operator sees the attempt', async () => {
    expect(await terminal('show', reference)).toContain('Ann\\u{1b}[2J\\u{1b}]52;c;cm0gLXJmIH4=\\u{7} \\u{9b}31m');
  });

  it('shows why a waiting email has not gone yet, its last error made printable', async () => {
    await db
      .updateTable('email_outbox')
      .set({ attempts: 2, last_error: 'Error: connect ECONNREFUSED 127.0.0.1:25\u001b[2J' })
      .execute();
    expect(await terminal('outbox')).toMatch(
      /waiting \(2 tries, Error: connect ECONNREFUSED 127\.0\.0\.1:25\\u\{1b\}\[2J\)/,
    );
    await db.updateTable('email_outbox').set({ attempts: 0, last_error: null }).execute();
  });

  it('makes the mail waiting after an outage due now, leaving what was sent or given up alone', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await db.updateTable('email_outbox').set({ attempts: 5, next_attempt_at: later }).execute();
    expect(await terminal('outbox', 'send-now')).toMatch(/^1 email due now: the running service sends it within 2 s/);
    const [email] = await db.selectFrom('email_outbox').select(['next_attempt_at', 'attempts']).execute();
    expect(Date.parse(email!.next_attempt_at!)).toBeLessThanOrEqual(Date.now());
    // Its count of tries is kept: the next failure waits as long as it would have.
    expect(email!.attempts).toBe(5);
    expect(await terminal('outbox', 'send-now')).toBe('No emails waiting.');
    expect(await terminal('webhooks', 'send-now')).toBe('No webhook events waiting.');
    await db.updateTable('email_outbox').set({ attempts: 0 }).execute();
  });

  it('never shows a confirmation link, sent or not', async () => {
    for (const args of [['outbox'], ['outbox', '1'], ['outbox', '--json']]) {
      const output = await terminal(...args);
      expect(output).not.toMatch(/#token=[A-Za-z0-9_-]{43}/);
    }
    expect(await terminal('outbox', '1')).toContain('/delete-account/confirm#token=[hidden]');
    // The token is still in the queued email, for the worker to send.
    const [queued] = await db.selectFrom('email_outbox').select('body_text').execute();
    expect(queued!.body_text).toMatch(/#token=[A-Za-z0-9_-]{43}/);
  });
});

describe('the database the operators’ CLI opens', () => {
  it('is the workspace’s, as `pnpm start` and `pnpm dev` use it, named on the first line, when nothing is set', async () => {
    const workspaceData = fileURLToPath(new URL('../../../.data/requests.sqlite', import.meta.url));
    const set = process.env.DATA_DIR;
    delete process.env.DATA_DIR;
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await terminal('list');
      expect(said.mock.calls[0]).toEqual([`Database: SQLite ${workspaceData}`]);
    } finally {
      process.env.DATA_DIR = set;
    }
  });

  it('names a PostgreSQL database by host, port and name, never its user or password', () => {
    const name = databaseName({ databaseUrl: 'postgres://gifts:s3cret@db.internal:6432/gifting', dataDir: '' });
    expect(name).toBe('PostgreSQL db.internal:6432/gifting');
  });
});

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMigratedDatabase, type Db } from '../db/database.ts';
import { deletionRequests } from '../deletion-requests/repository.ts';
import { sqliteDatabase } from '../../test/databases.ts';
import { emailedToken } from '../../test/inbox.ts';
import { startSmtpSink, type ReceivedEmail } from '../../test/smtp-sink.ts';
import { createTransport, deliverDueEmails, maxAttempts, retryDelayMs, type MailTransport } from './outbox.ts';

let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let received: ReceivedEmail[] = [];
let smtpPort = 0;

beforeAll(async () => {
  sink = await startSmtpSink();
  ({ received, port: smtpPort } = sink);
});
afterAll(() => sink.close());

async function queuedRequest(): Promise<{ db: Db; dataDir: string; reference: string }> {
  const { db, dataDir } = await sqliteDatabase();
  const { reference } = await deletionRequests(db, { siteUrl: 'https://gifts.example' }).submit({
    name: 'Ann Lee',
    email: 'ann@example.com',
    reason: 'Not using it',
  });
  return { db, dataDir, reference };
}

describe('the email outbox', () => {
  it('delivers the confirmation email through a real SMTP server', async () => {
    const { db, dataDir, reference } = await queuedRequest();
    const transport = createTransport({ smtpUrl: `smtp://127.0.0.1:${smtpPort}`, dataDir });
    expect(await deliverDueEmails(db, transport, 'Giftwell <no-reply@giftwell.example>')).toMatchObject({
      due: 1,
      sent: 1,
    });
    const email = received.at(-1)!;
    expect(email.to).toEqual(['ann@example.com']);
    expect(email.raw).toContain(`Subject: Confirm your account deletion request (${reference})`);
    // Undo quoted-printable soft breaks and escapes before reading the link.
    const body = email.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(body).toMatch(/https:\/\/gifts\.example\/delete-account\/confirm#token=[A-Za-z0-9_-]{43}/);
    // Two parts, plain text first (the last part is the one mail apps prefer), the same link in each.
    expect(body).toMatch(
      /Content-Type: multipart\/alternative[\s\S]*Content-Type: text\/plain[\s\S]*Content-Type: text\/html/,
    );
    const links = body.match(/https:\/\/gifts\.example\/delete-account\/confirm#token=[A-Za-z0-9_-]{43}/g) ?? [];
    expect(new Set(links).size).toBe(1);
    expect(links.length).toBeGreaterThanOrEqual(2);
    const row = await db.selectFrom('email_outbox').selectAll().executeTakeFirstOrThrow();
    expect(row.sent_at).not.toBeNull();
    expect(await deliverDueEmails(db, transport, 'x@example.com')).toMatchObject({ due: 0, sent: 0 });
    // Sent, the link is no longer anyone's business but its reader's.
    expect(row.body_text).toContain('https://gifts.example/delete-account/confirm#token=[hidden]');
    expect(row.body_text).not.toMatch(/#token=[A-Za-z0-9_-]{43}/);
    await db.destroy();
  });

  it('delivers the completion, rejection and extension emails through the same SMTP server', async () => {
    const { db, dataDir } = await sqliteDatabase();
    const requests = deletionRequests(db);
    const transport = createTransport({ smtpUrl: `smtp://127.0.0.1:${smtpPort}`, dataDir });
    const confirmedRequest = async (email: string) => {
      const { reference } = await requests.submit({ name: 'Ann', email, reason: 'r' });
      await requests.confirm(await emailedToken(db, reference));
      return reference;
    };
    const completed = await confirmedRequest('done@example.com');
    await requests.transition(completed, 'completed', { actor: 'ops' });
    const rejected = await confirmedRequest('no@example.com');
    await requests.transition(rejected, 'rejected', { actor: 'ops', note: 'We could not find this account.' });
    const extended = await confirmedRequest('later@example.com');
    await requests.extend(extended, 2, { reason: 'A large export is running.', actor: 'ops' });
    const before = received.length;
    expect(await deliverDueEmails(db, transport, 'Giftwell <no-reply@giftwell.example>')).toMatchObject({
      due: 6,
      sent: 6,
    });
    const inbox = received.slice(before).map(({ to, raw }) => ({ to, raw: raw.replace(/=\r?\n/g, '') }));
    const to = (address: string) => inbox.filter((email) => email.to.includes(address)).at(-1)!.raw;
    expect(to('done@example.com')).toContain(`Subject: Your account has been deleted (${completed})`);
    expect(to('done@example.com')).toContain('What we keep, and why');
    expect(to('no@example.com')).toContain(`(${rejected})`);
    expect(to('no@example.com')).toContain('Why: We could not find this account.');
    expect(to('no@example.com')).toContain('supervisory authority');
    expect(to('later@example.com')).toContain(`(${extended})`);
    expect(to('later@example.com')).toContain('two more months');
    expect(to('later@example.com')).toContain('Why: A large export is running.');
    await db.destroy();
  });

  it('writes emails to files when no SMTP server is configured', async () => {
    const { db, dataDir } = await queuedRequest();
    const transport = createTransport({ smtpUrl: undefined, dataDir });
    expect(transport.describe).toContain(`${dataDir}/outbox`);
    expect((await deliverDueEmails(db, transport, 'x@example.com')).sent).toBe(1);
    expect(readdirSync(join(dataDir, 'outbox'))).toEqual(['000001.eml']);
    const file = readFileSync(join(dataDir, 'outbox', '000001.eml'), 'utf8').replace(/=\r?\n/g, '');
    expect(file).toMatch(/#token=3D[A-Za-z0-9_-]{43}/);
    await db.destroy();
  });

  it('keeps the database and the emails with their live links for the service’s user alone (0600 in 0700)', async () => {
    // A data folder that already exists, open to everyone, as an older version left it.
    const dataDir = join(mkdtempSync(join(tmpdir(), 'api-modes-')), 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const db = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
    await deletionRequests(db).submit({ name: 'Ann', email: 'ann@example.com', reason: 'r' });
    await deliverDueEmails(db, createTransport({ smtpUrl: undefined, dataDir }), 'x@example.com');
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    expect(mode(dataDir)).toBe('700');
    expect(mode(join(dataDir, 'outbox'))).toBe('700');
    for (const file of ['requests.sqlite', 'requests.sqlite-wal', 'outbox/000001.eml']) {
      expect(mode(join(dataDir, file)), file).toBe('600');
    }
    await db.destroy();
  });

  it('retries a failing send later and later, and gives up after the last attempt', async () => {
    const { db } = await queuedRequest();
    const failing: MailTransport = {
      describe: 'down',
      send: async () => Promise.reject(new Error('connection refused')),
    };
    let now = new Date(Date.now() + 1000);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      expect((await deliverDueEmails(db, failing, 'x@example.com', now)).due).toBe(1);
      const row = await db.selectFrom('email_outbox').selectAll().executeTakeFirstOrThrow();
      expect(row.attempts).toBe(attempt);
      expect(row.last_error).toContain('connection refused');
      expect(Date.parse(row.next_attempt_at) - now.getTime()).toBe(retryDelayMs(attempt));
      expect(await deliverDueEmails(db, failing, 'x@example.com', now)).toMatchObject({ due: 0, sent: 0 });
      now = new Date(row.next_attempt_at);
    }
    const row = await db.selectFrom('email_outbox').selectAll().executeTakeFirstOrThrow();
    expect(row.failed_at).not.toBeNull();
    expect(row.body_text).not.toMatch(/#token=[A-Za-z0-9_-]{43}/);
    expect((await deliverDueEmails(db, failing, 'x@example.com', new Date('2027-01-01'))).due).toBe(0);
    await db.destroy();
  });

  it('never delays or fails the 202 when mail is down: the request is stored and the email waits', async () => {
    const { db } = await queuedRequest();
    const rows = await db.selectFrom('deletion_requests').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(await db.selectFrom('email_outbox').select('sent_at').execute()).toEqual([{ sent_at: null }]);
    await db.destroy();
  });
});

describe('retryDelayMs', () => {
  it('doubles from 30 seconds and stops at an hour', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(retryDelayMs(20)).toBe(3_600_000);
  });
});

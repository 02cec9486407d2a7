import { closeSync, fsyncSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import nodemailer, { type Transporter } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import type { Transaction } from 'kysely';
import { privateFolder, type Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { claimDue, holdClaim, recordSurely, whileClaimed } from '../db/claims.ts';
import { isDatabaseAway } from '../db/faults.ts';
import { renderEmail } from './branded-email.tsx';
import { contentFromText, textOf, type EmailContent } from './email-content.ts';
import { withoutSecrets } from './secrets.ts';

export interface OutgoingEmail {
  to: string;
  content: EmailContent;
  reference?: string;
}

export const maxAttempts = 8;

/** 30 s, 1 min, 2 min … capped at one hour between attempts. */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** Queues an email in the same transaction as what caused it: it is sent if and only if that commits. */
export async function queueEmail(trx: Transaction<Database> | Db, email: OutgoingEmail, now: Date) {
  await trx
    .insertInto('email_outbox')
    .values({
      reference: email.reference ?? null,
      to_address: email.to,
      subject: email.content.subject,
      body_text: textOf(email.content),
      created_at: now.toISOString(),
      attempts: 0,
      next_attempt_at: now.toISOString(),
    })
    .execute();
}

export interface MailTransport {
  send(email: {
    from: string;
    to: string;
    subject: string;
    text: string;
    html: string;
    id: number;
    messageId: string;
    /** Aborts the send (its connection closed): its claim lost or about to lapse, or the send past `sendLimitMs`. */
    signal?: AbortSignal;
    /**
     * Called with the whole message at the mail server, before its end is written: a rejection stops the send there
     * (no end, no delivery). After it resolves the email may be delivered, whatever happens next.
     */
    beforeEnd?: () => Promise<void>;
  }): Promise<void>;
  describe: string;
}

/**
 * Writes a file so that it survives a power cut once this returns: to a temporary name, flushed to the disk, then
 * renamed, and the folder flushed too. The email's row is marked sent only after this.
 */
export function writeDurably(path: string, data: Buffer | string) {
  const temporary = `${path}.partial`;
  const file = openSync(temporary, 'w', 0o600);
  try {
    writeFileSync(file, data);
    fsyncSync(file);
  } finally {
    closeSync(file);
  }
  renameSync(temporary, path);
  const folder = openSync(join(path, '..'), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}

/** The address alone of `Name <address>`. */
const addressOf = (mailbox: string) => /<([^>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox.trim();

/**
 * One message over one SMTP connection: STARTTLS when the server offers it (smtps:// for TLS from the start), login
 * when the URL has a user. Bounded waits per phase (the answer to a message's end included: a server may scan it
 * first); the whole send is bounded by `signal` (the claim and `sendLimitMs`, see `deliverDueEmails`), which closes the
 * connection.
 */
async function sendOverSmtp(
  server: URL,
  envelope: { from: string; to: string[] },
  message: Readable,
  signal?: AbortSignal,
) {
  const connection = new SMTPConnection({
    host: server.hostname,
    port: Number(server.port) || (server.protocol === 'smtps:' ? 465 : 587),
    secure: server.protocol === 'smtps:',
    connectionTimeout: 5_000,
    greetingTimeout: 5_000,
    socketTimeout: 60_000,
  });
  // Whatever ends the send early, as one rejection: the connection's error or end (nodemailer tells of those by
  // events, not by the callbacks, which then never come), the message failing (its gate), or the signal.
  let settled = false;
  const stopped = new Promise<never>((_, reject) => {
    // The first reason wins; an end is said only when no error follows it at once (a refused connection ends too).
    const stop = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
      connection.close();
    };
    connection.on('error', stop);
    connection.once('end', () => setImmediate(() => stop(new Error('the mail server closed the connection'))));
    message.on('error', stop);
    if (signal?.aborted) stop(abortedBy(signal));
    signal?.addEventListener('abort', () => stop(abortedBy(signal)));
  });
  stopped.catch(() => {});
  const step = (start: (done: (error?: Error | null) => void) => void) =>
    Promise.race([
      stopped,
      new Promise<void>((resolve, reject) => start((error) => (error ? reject(error) : resolve()))),
    ]);
  try {
    await step((done) => connection.connect(done));
    if (server.username) {
      const credentials = { user: decodeURIComponent(server.username), pass: decodeURIComponent(server.password) };
      await step((done) => connection.login(credentials, done));
    }
    await step((done) => connection.send(envelope, message, (error) => done(error)));
    settled = true;
    connection.quit();
  } catch (error) {
    settled = true;
    connection.close();
    throw error;
  }
}

const abortedBy = (signal: AbortSignal) =>
  Object.assign(new Error('the send was aborted'), { cause: signal.reason as unknown });

/** SMTP when configured; otherwise each email is written to a file the operators can read. */
export function createTransport({ smtpUrl, dataDir }: { smtpUrl: string | undefined; dataDir: string }): MailTransport {
  if (smtpUrl) {
    const server = new URL(smtpUrl);
    return {
      describe: `SMTP ${server.host}`,
      async send({ from, to, subject, text, html, messageId, signal, beforeEnd }) {
        const message = await new MailComposer({ from, to, subject, text, html, messageId }).compile().build();
        // The message as a stream that ends only once `beforeEnd` resolved: the connection writes the end
        // (CRLF.CRLF) when the stream ends, and a stream that fails instead ends the send without it. Nodemailer's
        // transport reads a message whole before it connects, so the connection is driven here.
        const raw = Readable.from(
          (async function* () {
            yield message;
            await beforeEnd?.();
          })(),
        );
        await sendOverSmtp(server, { from: addressOf(from), to: [addressOf(to)] }, raw, signal);
      },
    };
  }
  const folder = join(dataDir, 'outbox');
  const files: Transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    describe: `files in ${folder}`,
    async send({ from, to, subject, text, html, id, messageId, beforeEnd }) {
      const { message } = (await files.sendMail({ from, to, subject, text, html, messageId })) as {
        message: Buffer;
      };
      await beforeEnd?.();
      privateFolder(folder);
      writeDurably(join(folder, `${String(id).padStart(6, '0')}.eml`), message);
    },
  };
}

/**
 * How long a worker's claim on the emails it took holds without renewal (renewed every third of it while its batch
 * runs): a worker that dies delays its emails by this much at most.
 */
export const defaultLeaseMs = 30_000;

/**
 * How long one send may take, all of it (connection, each command, the message and the answer to its end). RFC 5321
 * (4.5.3.2) has a client wait minutes for an answer, up to 10 for the one to a message's end, which a server gives
 * once it has scanned the message: a client that hangs up sooner leaves a server that delivers it all the same, and
 * the email went again at its next attempt (a server slow at every command never got an email once: each send was
 * cut at a third of the lease). The claim is held meanwhile (`holdClaim`), so no other instance sends it.
 */
export const sendLimitMs = 180_000;

/**
 * One Message-ID per queued email, the same on every attempt: a mail system that receives it twice (a worker died
 * between the send and the mark) can drop the copy.
 */
export function messageIdOf(email: { id: number; created_at: string }, from: string): string {
  const domain = /@([^>\s]+)/.exec(from)?.[1] ?? 'localhost';
  return `<outbox-${email.id}-${Date.parse(email.created_at)}@${domain}>`;
}

/**
 * How long an email past its gate is due to no worker: its own has the send's limit to record its outcome. Should that
 * never land (the worker killed), it is due again after this, and sent again with its `Message-ID`; the row says so.
 */
const pastTheGateMs = sendLimitMs + 60_000;

/**
 * The gate before an email's end: the row says, while this worker still holds its claim, that the end is about to be
 * written (and makes it due no more). A database away or a claim lost stops the send before the end: nothing is
 * delivered, and the email is tried again as any failed send.
 */
function endGate(db: Db, { id, attempts }: { id: number; attempts: number }, holder: string) {
  let passed = false;
  let refused = false;
  return {
    passed: () => passed,
    /** Whether the gate itself stopped the send (the database away, the claim lost): the mail server is not at fault. */
    refused: () => refused,
    pass: async () => {
      const at = new Date();
      const now = at.toISOString();
      refused = true;
      const written = await db
        .updateTable('email_outbox')
        .set({ end_written_at: now, next_attempt_at: new Date(at.getTime() + pastTheGateMs).toISOString() })
        .where('id', '=', id)
        .where('claimed_by', '=', holder)
        .where('claimed_until', '>', now)
        .where('sent_at', 'is', null)
        // Late (the database away until after this attempt was recorded as failed): not this attempt's any more.
        .where('attempts', '=', attempts)
        .executeTakeFirst();
      if (Number(written.numUpdatedRows) !== 1) throw new Error('its claim was lost before its end was written');
      refused = false;
      passed = true;
    },
  };
}

/**
 * Sends what is due, claimed so that no other instance sends it too; failures wait longer each time and give up
 * after `maxAttempts`. Never throws.
 */
export async function deliverDueEmails(
  db: Db,
  transport: MailTransport,
  from: string,
  now = new Date(),
  leaseMs = defaultLeaseMs,
  holder = 'this worker',
) {
  const due = await claimDue(db, 'email_outbox', { now, leaseMs, limit: 20, holder });
  let sent = 0;
  let lastError: string | undefined;
  const notRecorded: number[] = [];
  for await (const email of whileClaimed(db, 'email_outbox', due, { leaseMs, holder, claimedAt: now.getTime() })) {
    // Held for as long as the send takes; aborted, its connection closed, before another instance could take it:
    // until the message's end is about to be written. From then on it may be delivered whatever this worker does, so
    // nothing cuts it short but the send's own limit, and it is never sent again blindly.
    const claim = holdClaim(db, 'email_outbox', email, { leaseMs, holder });
    const beforeEnd = endGate(db, email, holder);
    const toSend = new AbortController();
    claim.signal.addEventListener('abort', () => {
      if (!beforeEnd.passed()) toSend.abort(claim.signal.reason);
    });
    try {
      const { id, to_address: to, subject, body_text: text } = email;
      // The HTML part is made now, from the text: a new request writes the text alone (see contentFromText).
      const { html } = renderEmail(contentFromText(subject, text));
      const signal = AbortSignal.any([toSend.signal, AbortSignal.timeout(sendLimitMs)]);
      await transport.send({
        ...{ from, to, subject, text, html, id, messageId: messageIdOf(email, from), signal },
        beforeEnd: beforeEnd.pass,
      });
    } catch (error) {
      claim.release();
      // An abort says why in its cause (the claim lost, or the send too long).
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      lastError = `${String(error)}${cause}`.slice(0, 500);
      if (beforeEnd.passed()) {
        // The end was written and no answer came (or a failure did): the mail server may have delivered it. Said on
        // its row, and not sent again by any worker.
        lastError = `possibly delivered (its end was written, then: ${lastError})`.slice(0, 500);
        const recorded = await recordSurely(
          () =>
            db
              .updateTable('email_outbox')
              .set({ last_error: lastError!, failed_at: new Date().toISOString(), claimed_until: null })
              .where('id', '=', email.id)
              .execute(),
          sendLimitMs,
          isDatabaseAway,
        );
        if (!recorded) notRecorded.push(email.id);
        continue;
      }
      // Stopped at the gate (the database away at that moment): nothing was delivered and the mail server did
      // nothing wrong, so it is due again at once, not after a backoff, and the try is not counted.
      const attempts = beforeEnd.refused() ? email.attempts : email.attempts + 1;
      const givenUp = attempts >= maxAttempts;
      // Tried again while the database is away (it may be why the send stopped), within the claim's lease.
      const failed = await recordSurely(
        () =>
          db
            .updateTable('email_outbox')
            .set({
              attempts,
              last_error: lastError,
              next_attempt_at: beforeEnd.refused()
                ? new Date().toISOString()
                : new Date(now.getTime() + retryDelayMs(attempts)).toISOString(),
              failed_at: givenUp ? now.toISOString() : null,
              claimed_until: null,
              // Stopped before its end: not delivered, whatever a late write of the gate said.
              end_written_at: null,
              ...(givenUp ? { body_text: withoutSecrets(email.body_text) } : {}),
            })
            .where('id', '=', email.id)
            .execute(),
        leaseMs,
        isDatabaseAway,
      );
      if (!failed) notRecorded.push(email.id);
      continue;
    }
    claim.release();
    // Sent: marked so, tried again while the database is away, so that it is not sent twice.
    const recorded = await recordSurely(
      () =>
        db
          .updateTable('email_outbox')
          // The link has reached its reader: the outbox keeps the email without it.
          .set({
            sent_at: new Date().toISOString(),
            // Sent after an earlier attempt wrote its end and never recorded what came of it (its worker killed):
            // it may have arrived twice, with one Message-ID.
            last_error: email.end_written_at
              ? `sent again: an earlier attempt wrote its end at ${email.end_written_at} and recorded nothing after`
              : null,
            body_text: withoutSecrets(email.body_text),
            claimed_until: null,
          })
          .where('id', '=', email.id)
          .execute(),
      // Past its gate the row is due no more: no other worker takes it while this one keeps trying to record it.
      beforeEnd.passed() ? sendLimitMs : leaseMs / 2,
      isDatabaseAway,
    );
    if (recorded) sent++;
    else notRecorded.push(email.id);
  }
  return { due: due.length, sent, lastError, notRecorded };
}

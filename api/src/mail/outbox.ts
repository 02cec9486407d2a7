import { closeSync, fsyncSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
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

/** SMTP when configured; otherwise each email is written to a file the operators can read. */
export function createTransport({ smtpUrl, dataDir }: { smtpUrl: string | undefined; dataDir: string }): MailTransport {
  if (smtpUrl) {
    // Bounded waits per phase (the answer to a message's end included: a server may scan it first); the whole send
    // is bounded by `sendLimitMs` and by its claim (the signal, see `deliverDueEmails`).
    const transporter: Transporter = nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: 5_000,
      greetingTimeout: 5_000,
      socketTimeout: 60_000,
    });
    return {
      describe: `SMTP ${new URL(smtpUrl).host}`,
      async send({ from, to, subject, text, html, messageId, signal }) {
        await transporter.sendMail({ from, to, subject, text, html, messageId, ...(signal && { signal }) });
      },
    };
  }
  const folder = join(dataDir, 'outbox');
  const files: Transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    describe: `files in ${folder}`,
    async send({ from, to, subject, text, html, id, messageId }) {
      const { message } = (await files.sendMail({ from, to, subject, text, html, messageId })) as {
        message: Buffer;
      };
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
    // Held for as long as the send takes; aborted, its connection closed, before another instance could take it.
    const claim = holdClaim(db, 'email_outbox', email, { leaseMs, holder });
    try {
      const { id, to_address: to, subject, body_text: text } = email;
      // The HTML part is made now, from the text: a new request writes the text alone (see contentFromText).
      const { html } = renderEmail(contentFromText(subject, text));
      const signal = AbortSignal.any([claim.signal, AbortSignal.timeout(sendLimitMs)]);
      await transport.send({ from, to, subject, text, html, id, messageId: messageIdOf(email, from), signal });
    } catch (error) {
      claim.release();
      // An abort says why in its cause (the claim lost, or the send too long).
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      lastError = `${String(error)}${cause}`.slice(0, 500);
      const attempts = email.attempts + 1;
      const givenUp = attempts >= maxAttempts;
      await db
        .updateTable('email_outbox')
        .set({
          attempts,
          last_error: lastError,
          next_attempt_at: new Date(now.getTime() + retryDelayMs(attempts)).toISOString(),
          failed_at: givenUp ? now.toISOString() : null,
          claimed_until: null,
          ...(givenUp ? { body_text: withoutSecrets(email.body_text) } : {}),
        })
        .where('id', '=', email.id)
        .execute();
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
            last_error: null,
            body_text: withoutSecrets(email.body_text),
            claimed_until: null,
          })
          .where('id', '=', email.id)
          .execute(),
      leaseMs / 2,
      isDatabaseAway,
    );
    if (recorded) sent++;
    else notRecorded.push(email.id);
  }
  return { due: due.length, sent, lastError, notRecorded };
}

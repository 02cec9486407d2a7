import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  /** Envelope recipients. */
  to: string[];
  raw: string;
  messageId: string;
}

/**
 * A real SMTP server on 127.0.0.1 that keeps every message it receives, in order. `delayMs` makes it a slow mail
 * server: each message is acknowledged that much later; `commandDelayMs` answers the sender and each recipient that
 * much later (a server slow at every command, each answer inside the client's idle timeout).
 */
export async function startSmtpSink({
  delayMs = 0,
  commandDelayMs = 0,
  port = 0,
  received = [] as ReceivedEmail[],
}: { delayMs?: number; commandDelayMs?: number; port?: number; received?: ReceivedEmail[] } = {}) {
  const later = (callback: () => void) => (commandDelayMs ? setTimeout(callback, commandDelayMs) : callback());
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onMailFrom: (_address, _session, callback) => later(() => callback()),
    onRcptTo: (_address, _session, callback) => later(() => callback()),
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        const messageId = /^Message-ID: (.+)$/im.exec(raw)?.[1]?.trim() ?? '';
        setTimeout(() => {
          received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw, messageId });
          callback();
        }, delayMs);
      });
    },
  });
  // A client that dies mid-conversation (an instance killed by a test) resets its connection: expected, not fatal.
  // What it costs shows in the checks: a message that never arrives.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as { port: number }).port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

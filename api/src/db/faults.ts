/**
 * How the servers tell and tell of their database's faults: which errors mean the database is away (not a fault of
 * ours or the request's), the last such fault for the health checks, and a log that says once when something starts
 * failing and once when it works again.
 */

/**
 * Whether a fault says the database could not be reached or did not answer (refused, ended or lost connections, no
 * answer within a timeout, shutting down, out of connections), as against one it answered with (a lock wait, a full
 * disk): a successful reach after it means it is over.
 */
const isUnreached = (error: Error) =>
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|EPIPE|57P0[1-3]|57014|08\w{3}|53300)$/.test(
    String((error as { code?: unknown }).code ?? ''),
  ) ||
  /^Connection terminated|timeout exceeded when trying to connect|^Client has encountered a connection error|^Query read timeout/.test(
    error.message,
  );

/**
 * Whether a failure is the database's absence or slowness, not a fault of ours or the request's: refused, ended or
 * lost connections, no connection within the connect timeout, a statement or lock wait past its timeout, PostgreSQL
 * shutting down or out of connections, SQLite's disk full or its file busy. The request's transaction did not commit:
 * nothing of it was kept, and the same request shortly after will do.
 */
export const isDatabaseAway = (error: Error): boolean =>
  isUnreached(error) || /^(55P03|SQLITE_(FULL|BUSY|IOERR\w*))$/.test(String((error as { code?: unknown }).code ?? ''));

/** A fault of the database as an operator reads it: its code and message. */
export const faultReason = (error: Error) => {
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && !error.message.includes(code) ? `${code}: ` : '') + error.message.slice(0, 300);
};

let lastFault: { reason: string; at: number; unreached: boolean } | undefined;

/** Notes a fault of the database that a request or a worker met, for the health checks. */
export function sawDatabaseFault(error: Error) {
  lastFault = { reason: faultReason(error), at: Date.now(), unreached: isUnreached(error) };
}

/**
 * The last fault of the database met in the past `withinMs`, if any: health says degraded meanwhile. `reachedNow`: the
 * database answered the health check just now, which ends a fault of not reaching it (PostgreSQL stopped and started
 * again is "up" at the first check after, not 30 s later); one it answered with (a full disk, a lock) stays the window.
 */
export function recentDatabaseFault(withinMs = 30_000, reachedNow = false): string | undefined {
  if (lastFault && reachedNow && lastFault.unreached) lastFault = undefined;
  return lastFault && Date.now() - lastFault.at < withinMs ? lastFault.reason : undefined;
}

/** The two levels an outage is told at. */
export type OutageLogger = Record<'warn' | 'info', (fields: object, message: string) => void>;

/**
 * What fails now (a database, a mail server, a webhook receiver), said once at warn when it starts failing, with the
 * reason, and once at info when it works again, with how long it failed: not at every try.
 */
export function outageLog(log: OutageLogger) {
  const failing = new Map<string, number>();
  return {
    failed(what: string, reason: string, meanwhile = '') {
      if (failing.has(what)) return;
      failing.set(what, Date.now());
      log.warn({ reason }, `${what} fails: ${reason}${meanwhile ? `; ${meanwhile}` : ''}`);
    },
    works(what: string) {
      const since = failing.get(what);
      if (since === undefined) return;
      failing.delete(what);
      log.info({ seconds: Math.round((Date.now() - since) / 1000) }, `${what} works again`);
    },
    isFailing: (what: string) => failing.has(what),
  };
}

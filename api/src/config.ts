import { join } from 'node:path';

/** Every setting comes from the environment; the README lists them with these defaults. */
export interface ApiConfig {
  /** PostgreSQL connection string; SQLite under `dataDir` when absent. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Origins allowed to post from a browser besides the site's own; `*` disables the check. */
  allowedOrigins: string[];
  rateLimit: {
    perIpPoints: number;
    perIpWindowSeconds: number;
    perEmailPoints: number;
    perEmailWindowSeconds: number;
  };
  /** Days the operators have to answer a request (one month). */
  deadlineDays: number;
  logLevel: string;
  /** Public address of the site, for links in emails (never taken from a request's Host header). */
  siteUrl: string;
  /** Hours a confirmation link stays valid. */
  confirmationTtlHours: number;
  /** Days after which requests nobody confirmed are deleted. */
  unverifiedPurgeDays: number;
  /** SMTP server as a URL (smtp://user:pass@host:587); without one, emails go to files in `$DATA_DIR/outbox`. */
  smtpUrl: string | undefined;
  mailFrom: string;
  outboxIntervalMs: number;
  /** Longest a client may take to send one whole request (slow bodies are cut off with 408). */
  requestTimeoutMs: number;
}

function integer(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`Expected a whole number, got "${value}"`);
  return parsed;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env, root = process.cwd()): ApiConfig {
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? join(root, '.data'),
    bodyLimit: integer(env.API_BODY_LIMIT_BYTES, 8 * 1024),
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    rateLimit: {
      perIpPoints: integer(env.RATE_LIMIT_PER_IP, 20),
      perIpWindowSeconds: integer(env.RATE_LIMIT_PER_IP_WINDOW_SECONDS, 60),
      perEmailPoints: integer(env.RATE_LIMIT_PER_EMAIL, 5),
      perEmailWindowSeconds: integer(env.RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS, 3600),
    },
    deadlineDays: integer(env.DELETION_DEADLINE_DAYS, 30),
    logLevel: env.LOG_LEVEL ?? 'info',
    siteUrl: (env.PUBLIC_SITE_URL ?? `http://127.0.0.1:${env.PORT ?? 4173}`).replace(/\/+$/, ''),
    confirmationTtlHours: integer(env.CONFIRMATION_TTL_HOURS, 24),
    unverifiedPurgeDays: integer(env.UNVERIFIED_PURGE_DAYS, 7),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM ?? 'Giftwell <no-reply@giftwell.example>',
    outboxIntervalMs: integer(env.OUTBOX_INTERVAL_MS, 2000),
    requestTimeoutMs: integer(env.REQUEST_TIMEOUT_MS, 10_000),
  };
}

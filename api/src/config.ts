import { defaultJudgeSettings, type JudgeSettings } from './judge/judge.ts';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processSecret } from './deletion-requests/email.ts';
import { defaultDatabaseTimeouts, type DatabaseTimeouts } from './db/database.ts';
import {
  databaseUrl,
  httpAddress,
  port,
  secret,
  settingsReader,
  usableFolder,
  type SettingsReader,
} from './settings-reader.ts';

/** Every setting comes from the environment; docs/configuration.md lists them with these defaults. */
export interface ApiConfig {
  /** API_PORT: where the API listens when it runs on its own. */
  apiPort: number;
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
  /** How long a worker holds the emails it claimed before another instance may send them (renewed as it sends). */
  outboxLeaseMs: number;
  /**
   * INSTANCE_NAME: this instance among those sharing the database, the same after a restart (by default the host's
   * name and the port): it takes back its own claims on the queues when it starts again.
   */
  instanceName: string;
  /** How long PostgreSQL may keep a request or a worker waiting: to connect, for a statement, for a lock. */
  databaseTimeouts: DatabaseTimeouts;
  /**
   * `/metrics` (Prometheus' text format): on unless METRICS=off; read from this machine, or with
   * `Authorization: Bearer $METRICS_TOKEN`.
   */
  metrics: { enabled: boolean; token: string | undefined };
  /** Longest a client may take to send one whole request (slow bodies are cut off with 408). */
  requestTimeoutMs: number;
  /**
   * Which X-Forwarded-For hops to believe: false (none: the socket's address is the client), a number of proxies in
   * front, or their addresses (comma-separated IPs or CIDRs). Never "every hop", which anyone could fake.
   */
  trustProxy: false | number | string;
  /** Key of the hash that stands for an email address in the logs. */
  logHashSecret: string;
  /** Keys of the form-outcome cookies' signatures: the first signs, each verifies (two while one replaces the other). */
  cookieSecrets: string[];
  /** Field-data beacons one client address may send per RATE_LIMIT_PER_IP_WINDOW_SECONDS (a beacon per page view). */
  fieldDataPerIp: number;
  /** FIELD_DATA_MAX_MB: the raw reports' storage budget; past it new reports are sampled. */
  fieldDataMaxBytes: number;
  /**
   * What the release watch needs before it decides: views from RELEASE_WATCH_MIN_NETWORKS client networks, each network
   * counted for at most RELEASE_WATCH_MAX_PER_NETWORK views of a version an hour.
   */
  releaseWatch: JudgeSettings & { maxPerNetwork: number };
  /** Days a shared location is kept after its last update. */
  locationRetentionDays: number;
  /** New share-link tokens one client may store a day. */
  locationNewTokensPerDay: number;
  /** Where each change of a deletion request is posted as a signed event; none when unset. */
  webhookUrl: string | undefined;
  /** Keys of the events' signatures: the first, or both while one replaces the other. */
  webhookSecrets: string[];
  /** A receiver slower than this to answer counts as a failed delivery. */
  webhookTimeoutMs: number;
}

/** WEBHOOK_URL and WEBHOOK_SECRET (one secret, or two comma-separated while rotating): both or neither. */
function readWebhook(env: NodeJS.ProcessEnv) {
  const url = env.WEBHOOK_URL?.trim() || undefined;
  const secrets = (env.WEBHOOK_SECRET ?? '')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
  if (!url) return { webhookUrl: undefined, webhookSecrets: secrets };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`WEBHOOK_URL is not an address: "${url}"`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`WEBHOOK_URL must be an http(s) address, not "${url}"`);
  }
  if (secrets.length === 0 || secrets.length > 2) {
    throw new Error(
      'WEBHOOK_SECRET must hold one secret (or two, comma-separated, while rotating) when WEBHOOK_URL is set',
    );
  }
  if (secrets.some((secret) => secret.length < 32)) {
    throw new Error('Each WEBHOOK_SECRET must be at least 32 characters long (openssl rand -hex 32)');
  }
  return { webhookUrl: parsed.href, webhookSecrets: secrets };
}

/** A number above 0 (a fraction allowed), or a clear error naming the setting. */
function positive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a number above 0, got "${value}"`);
  return parsed;
}

/**
 * The release judge's settings (docs/configuration.md): each RELEASE_WATCH_* over its default. Confidences and margins
 * are written in percent (`RELEASE_WATCH_CONFIDENCE=99.9`, `RELEASE_WATCH_ERROR_MARGIN=2` points) and kept as shares.
 */
export function readJudgeSettings(
  env: NodeJS.ProcessEnv,
  reader?: SettingsReader,
): JudgeSettings & { maxPerNetwork: number } {
  const d = defaultJudgeSettings;
  const settings = reader ?? settingsReader();
  /** A percentage from `name` as a share, or `fallback` (a share) when unset; below 100 when `below100`. */
  const percent = (name: string, fallback: number, below100 = true) =>
    settings.take(() => {
      if (env[name] === undefined || env[name] === '') return fallback;
      const share = positive(env[name], name, 0) / 100;
      if (below100 && share >= 1) throw new Error(`${name} must be a percentage below 100, got "${env[name]}"`);
      return share;
    }, fallback);
  /** Minutes from `name`, 0 or more (fractions too: a journey's rehearsal waits seconds), or `fallback`. */
  const minutes = (name: string, fallback: number) =>
    settings.take(() => {
      if (env[name] === undefined || env[name] === '') return fallback;
      const parsed = Number(env[name]);
      if (!Number.isFinite(parsed) || parsed < 0)
        throw new Error(`${name} must be 0 or a number of minutes above it, got "${env[name]}"`);
      return parsed;
    }, fallback);
  const whole = (name: string, fallback: number) => settings.take(() => integer(env, name, fallback), fallback);
  const judge = {
    ...d,
    minNetworks: whole('RELEASE_WATCH_MIN_NETWORKS', d.minNetworks),
    maxPerNetwork: whole('RELEASE_WATCH_MAX_PER_NETWORK', 5),
    setAside: whole('RELEASE_WATCH_SET_ASIDE', d.setAside),
    networkWeight: settings.take(
      () => positive(env.RELEASE_WATCH_NETWORK_WEIGHT, 'RELEASE_WATCH_NETWORK_WEIGHT', d.networkWeight),
      d.networkWeight,
    ),
    minErrorNetworks: whole('RELEASE_WATCH_MIN_ERROR_NETWORKS', d.minErrorNetworks),
    minVitalsNetworks: whole('RELEASE_WATCH_MIN_VITALS_NETWORKS', d.minVitalsNetworks),
    confidence: percent('RELEASE_WATCH_CONFIDENCE', d.confidence),
    advanceConfidence: percent('RELEASE_WATCH_ADVANCE_CONFIDENCE', d.advanceConfidence),
    errorMargin: {
      absolute: percent('RELEASE_WATCH_ERROR_MARGIN', d.errorMargin.absolute),
      relative: percent('RELEASE_WATCH_ERROR_MARGIN_RELATIVE', d.errorMargin.relative, false),
    },
    minimumEffect: {
      absolute: percent('RELEASE_WATCH_MIN_EFFECT', d.minimumEffect.absolute),
      relative: percent('RELEASE_WATCH_MIN_EFFECT_RELATIVE', d.minimumEffect.relative, false),
    },
    vitalsMargin: percent('RELEASE_WATCH_VITALS_MARGIN', d.vitalsMargin, false),
    confirmMinutes: minutes('RELEASE_WATCH_CONFIRM_MINUTES', d.confirmMinutes),
  };
  if (!reader) settings.done();
  return judge;
}

/** A whole number from `name`, 0 or more, or `fallback` when unset. */
function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a whole number, not "${value}"`);
  return parsed;
}

/** TRUST_PROXY: unset, "false" or 0 trusts no hop; a number trusts that many proxies; otherwise their addresses. */
export function readTrustProxy(value: string | undefined): false | number | string {
  const setting = (value ?? '').trim();
  if (setting === '' || setting === 'false' || setting === '0') return false;
  if (setting === 'true') {
    throw new Error(
      'TRUST_PROXY=true would believe any X-Forwarded-For a client makes up: set the number of proxies in front ' +
        '(TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.5,10.0.1.0/24).',
    );
  }
  if (/^\d+$/.test(setting)) return Number(setting);
  return setting;
}

/**
 * COOKIE_SECRET: one secret, or two comma-separated while rotating (the first signs, both verify), 32 characters or
 * more. Required in production, where several processes must agree; elsewhere one for this process stands in.
 */
function readCookieSecrets(env: NodeJS.ProcessEnv): string[] {
  const secrets = required(env, 'COOKIE_SECRET', processSecret, 'it signs the outcome a form post shows on its page')
    .split(',')
    .map((secret) => secret.trim())
    .filter(Boolean);
  if (secrets.length === 0 || secrets.length > 2) {
    throw new Error('COOKIE_SECRET must hold one secret, or two comma-separated while rotating');
  }
  if (secrets.some((secret) => secret.length < 32)) {
    throw new Error('Each COOKIE_SECRET must be at least 32 characters long (openssl rand -hex 32)');
  }
  return secrets;
}

/** A setting production cannot run without; elsewhere `fallback` stands in. */
function required(env: NodeJS.ProcessEnv, name: string, fallback: string, why: string): string {
  const value = env[name];
  if (value) return value;
  if (env.NODE_ENV === 'production') throw new Error(`${name} must be set in production: ${why}`);
  return fallback;
}

/**
 * The host and the port this instance listens on: unique among the running instances, the same after a restart. A
 * process that names no port (a test) gets a name of its own.
 */
function defaultInstanceName(env: NodeJS.ProcessEnv) {
  const port = env.API_PORT || env.PORT;
  return port ? `${hostname()}:${port}` : `${hostname()}:pid-${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** The workspace's root: its `.data` is where `pnpm start`, `pnpm dev` and the operators' commands all keep data. */
export const workspaceRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The API's settings from the environment. Every wrong or missing one is named at once (`SettingsError`): `reader`, to
 * add them to a caller's own (the site server's); `server`, for a server that starts with them: its data folder must
 * be one it can make and write.
 */
export function readConfig(
  env: NodeJS.ProcessEnv = process.env,
  root = workspaceRoot,
  { reader, server = false }: { reader?: SettingsReader; server?: boolean } = {},
): ApiConfig {
  const settings = reader ?? settingsReader();
  const whole = (name: string, fallback: number) => settings.take(() => integer(env, name, fallback), fallback);
  const dataDir = env.DATA_DIR ?? join(root, '.data');
  if (server) settings.take(() => usableFolder('DATA_DIR', dataDir), undefined);
  const config: ApiConfig = {
    apiPort: settings.take(() => port(env, 'API_PORT', 3001), 3001),
    databaseUrl: settings.take(() => databaseUrl(env), undefined),
    dataDir,
    bodyLimit: whole('API_BODY_LIMIT_BYTES', 8 * 1024),
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    rateLimit: {
      perIpPoints: whole('RATE_LIMIT_PER_IP', 20),
      perIpWindowSeconds: whole('RATE_LIMIT_PER_IP_WINDOW_SECONDS', 60),
      perEmailPoints: whole('RATE_LIMIT_PER_EMAIL', 5),
      perEmailWindowSeconds: whole('RATE_LIMIT_PER_EMAIL_WINDOW_SECONDS', 3600),
    },
    logLevel: env.LOG_LEVEL ?? 'info',
    siteUrl: settings
      .take(
        () =>
          httpAddress(env, 'PUBLIC_SITE_URL') ??
          required(
            env,
            'PUBLIC_SITE_URL',
            `http://127.0.0.1:${env.PORT ?? 4173}`,
            'links in emails and pages name the site by it, never by a request header',
          ),
        'http://127.0.0.1',
      )
      .replace(/\/+$/, ''),
    confirmationTtlHours: whole('CONFIRMATION_TTL_HOURS', 24),
    unverifiedPurgeDays: whole('UNVERIFIED_PURGE_DAYS', 7),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM ?? 'Giftwell <no-reply@giftwell.example>',
    outboxIntervalMs: whole('OUTBOX_INTERVAL_MS', 2000),
    outboxLeaseMs: whole('OUTBOX_LEASE_MS', 30_000),
    instanceName: env.INSTANCE_NAME || defaultInstanceName(env),
    metrics: { enabled: env.METRICS !== 'off', token: settings.take(() => secret(env, 'METRICS_TOKEN'), undefined) },
    databaseTimeouts: {
      connectMs: whole('DATABASE_CONNECT_TIMEOUT_MS', defaultDatabaseTimeouts.connectMs),
      statementMs: whole('DATABASE_STATEMENT_TIMEOUT_MS', defaultDatabaseTimeouts.statementMs),
      lockMs: whole('DATABASE_LOCK_TIMEOUT_MS', defaultDatabaseTimeouts.lockMs),
    },
    requestTimeoutMs: whole('REQUEST_TIMEOUT_MS', 10_000),
    trustProxy: settings.take(() => readTrustProxy(env.TRUST_PROXY), false),
    logHashSecret: settings.take(
      () =>
        secret(env, 'LOG_HASH_SECRET') ??
        required(env, 'LOG_HASH_SECRET', processSecret, 'it keys the hash that stands for email addresses in the logs'),
      processSecret,
    ),
    cookieSecrets: settings.take(() => readCookieSecrets(env), [processSecret]),
    fieldDataPerIp: whole('RUM_LIMIT_PER_IP', 60),
    fieldDataMaxBytes:
      settings.take(() => positive(env.FIELD_DATA_MAX_MB, 'FIELD_DATA_MAX_MB', 1024), 1024) * 1024 * 1024,
    releaseWatch: readJudgeSettings(env, settings),
    locationRetentionDays: whole('LOCATION_RETENTION_DAYS', 3),
    locationNewTokensPerDay: whole('LOCATION_NEW_TOKENS_PER_DAY', 20),
    ...settings.take(() => readWebhook(env), { webhookUrl: undefined, webhookSecrets: [] }),
    webhookTimeoutMs: whole('WEBHOOK_TIMEOUT_MS', 10_000),
  };
  if (!reader) settings.done();
  return config;
}

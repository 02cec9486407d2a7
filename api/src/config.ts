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
  };
}

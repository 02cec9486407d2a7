import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `pnpm start` runs the production server on a developer's machine. What production must be given and this machine
 * has not set (the site's address, the secrets that sign cookies and key the logs' hashes) stands in here: the
 * address it listens on, and secrets made once and kept in the data folder, so that a restart keeps cookies valid.
 */
const dataDir = process.env.DATA_DIR ?? join(fileURLToPath(new URL('../../..', import.meta.url)), '.data');
const secretsFile = join(dataDir, 'local-secrets.json');

function localSecrets(): Record<string, string> {
  if (existsSync(secretsFile)) return JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
  const made = { COOKIE_SECRET: randomBytes(32).toString('hex'), LOG_HASH_SECRET: randomBytes(32).toString('hex') };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(secretsFile, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600 });
  return made;
}

const standIns: string[] = [];
if (!process.env.PUBLIC_SITE_URL) {
  process.env.PUBLIC_SITE_URL = `http://127.0.0.1:${process.env.PORT ?? 4173}`;
  standIns.push('PUBLIC_SITE_URL');
}
if (!process.env.COOKIE_SECRET || !process.env.LOG_HASH_SECRET) {
  const secrets = localSecrets();
  for (const name of ['COOKIE_SECRET', 'LOG_HASH_SECRET'] as const) {
    if (process.env[name]) continue;
    process.env[name] = secrets[name];
    standIns.push(name);
  }
}
if (standIns.length) {
  console.log(
    `Local start: ${standIns.join(', ')} stand in for production's settings (secrets kept in ${secretsFile}).`,
  );
}

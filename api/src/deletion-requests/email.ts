import { createHmac, randomBytes } from 'node:crypto';
import { deletionRequestLimits } from '@gift/contracts';

// Pragmatic address check: one @, a dotted domain, no spaces or control characters.
const emailPattern =
  /^[^\s\p{Cc}@<>()[\]\\,;:"]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/u;

export function isValidEmail(email: string): boolean {
  return email.length <= deletionRequestLimits.email && emailPattern.test(email);
}

/** One spelling per address: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const gmail = new Set(['gmail.com', 'googlemail.com']);

/**
 * The mailbox an address delivers to, as far as the per-email limit is concerned: `user+tag@` is `user@` at every
 * domain (most providers deliver sub-addresses to the base mailbox; where one does not, the limit is only stricter),
 * and at Gmail dots in the local part do not count and googlemail.com is gmail.com.
 */
export function mailboxKey(email: string): string {
  const normalized = normalizeEmail(email);
  const at = normalized.lastIndexOf('@');
  let local = normalized.slice(0, at);
  let domain = normalized.slice(at + 1);
  local = local.split('+')[0] || local;
  if (gmail.has(domain)) {
    domain = 'gmail.com';
    local = local.replaceAll('.', '');
  }
  return `${local}@${domain}`;
}

/**
 * What the logs carry instead of an address: a keyed hash (HMAC-SHA256 with LOG_HASH_SECRET), enough to correlate
 * lines about one address, useless to anyone who hashes a list of known addresses without the secret.
 */
export function emailFingerprinter(secret: string) {
  return (email: string) => createHmac('sha256', secret).update(normalizeEmail(email)).digest('hex').slice(0, 16);
}

/** A secret for this process alone, when none is configured: fingerprints then correlate only until a restart. */
export const processSecret = randomBytes(32).toString('hex');

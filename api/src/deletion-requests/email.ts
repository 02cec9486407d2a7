import { createHash } from 'node:crypto';

export const maxEmailLength = 254;

// Pragmatic address check: one @, a dotted domain, no spaces or control characters.
const emailPattern =
  /^[^\s@<>()[\]\\,;:"]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isValidEmail(email: string): boolean {
  return email.length <= maxEmailLength && emailPattern.test(email);
}

/** One spelling per address: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** What the logs carry instead of an address: enough to correlate, nothing to read. */
export function emailFingerprint(email: string): string {
  return createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 12);
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { isRemoteName, type RemoteName } from '@gift/federation';
import { isVersionName } from './versions.ts';

/**
 * Preview links: a grant to see a published, not yet live, version of a remote on the real site, in one browser only.
 * The release tool signs one (`pnpm preview-link`) with PREVIEW_SECRET; the site server reads it (previews/).
 */

export const previewPath = '/__preview';
export const endPreviewPath = `${previewPath}/end`;
export const minimumSecretLength = 32;
/** The longest a link may stay valid: a preview is for looking at a build before it ships, not a second site. */
export const maxPreviewHours = 24 * 7;

export interface PreviewGrant {
  remote: RemoteName;
  version: string;
  /** When the grant ends, in milliseconds since the epoch. */
  expires: number;
}

export type TokenReading =
  { ok: true; grant: PreviewGrant } | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

/** A secret strong enough to sign with, or an error that says what is wrong. */
export function checkedSecret(secret: string): string {
  if (secret.length < minimumSecretLength) {
    throw new Error(`PREVIEW_SECRET must be at least ${minimumSecretLength} characters (it has ${secret.length})`);
  }
  return secret;
}

const signature = (payload: string, secret: string) =>
  createHmac('sha256', secret).update(`preview.${payload}`).digest('base64url');

/** `<payload>.<signature>`: the payload names the remote, the version and the expiry (seconds). */
export function signPreview(grant: PreviewGrant, secret: string): string {
  const payload = Buffer.from(
    JSON.stringify({ r: grant.remote, v: grant.version, e: Math.floor(grant.expires / 1000) }),
  ).toString('base64url');
  return `${payload}.${signature(payload, checkedSecret(secret))}`;
}

/** What a token grants, if it was signed with `secret`, is well formed and has not expired. */
export function readPreviewToken(token: string, secret: string, now = Date.now()): TokenReading {
  const [payload, signed, ...rest] = token.split('.');
  if (!payload || !signed || rest.length > 0 || token.length > 512) return { ok: false, reason: 'malformed' };
  const expected = Buffer.from(signature(payload, secret));
  const given = Buffer.from(signed);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const { r, v, e } = (fields ?? {}) as { r?: unknown; v?: unknown; e?: unknown };
  if (
    typeof r !== 'string' ||
    !isRemoteName(r) ||
    typeof v !== 'string' ||
    !isVersionName(v) ||
    typeof e !== 'number'
  ) {
    return { ok: false, reason: 'malformed' };
  }
  if (e * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, grant: { remote: r, version: v, expires: e * 1000 } };
}

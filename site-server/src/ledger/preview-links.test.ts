import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readPreviewToken, signPreview } from './preview-links.ts';

const secret = 'a-preview-secret-of-at-least-32-characters';
const now = Date.UTC(2026, 10, 24, 12);
const hour = 3_600_000;
const grant = { remote: 'legal' as const, version: '20261124.101500123-3f9a0c1e', expires: now + hour };

describe('preview tokens', () => {
  it('grant what they were signed for until they expire', () => {
    const token = signPreview(grant, secret);
    expect(readPreviewToken(token, secret, now)).toEqual({ ok: true, grant });
    expect(readPreviewToken(token, secret, now + hour - 1000).ok).toBe(true);
    expect(readPreviewToken(token, secret, now + hour)).toEqual({ ok: false, reason: 'expired' });
  });

  it('are refused when forged, tampered with or malformed', () => {
    const token = signPreview(grant, secret);
    const [payload, signature] = token.split('.') as [string, string];
    expect(readPreviewToken(token, 'another-secret-of-at-least-32-characters!', now).ok).toBe(false);
    // Another remote or version in the payload, with the signature of the original.
    for (const changed of [
      { ...grant, remote: 'vendor' as const },
      { ...grant, version: '20261124.000000000-00000000' },
      { ...grant, expires: now + 100 * hour },
    ]) {
      const [otherPayload] = signPreview(changed, secret).split('.');
      expect(readPreviewToken(`${otherPayload}.${signature}`, secret, now)).toEqual({ ok: false, reason: 'forged' });
    }
    expect(readPreviewToken(`${payload}.${signature.slice(1)}`, secret, now)).toEqual({ ok: false, reason: 'forged' });
    for (const malformed of ['', 'abc', `${token}.x`, `.${signature}`, 'x'.repeat(600)]) {
      expect(readPreviewToken(malformed, secret, now), malformed).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('name a known remote and a version that is no path, even when properly signed', () => {
    const signedWith = (fields: object) => {
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `${payload}.${createHmac('sha256', secret).update(`preview.${payload}`).digest('base64url')}`;
    };
    const expires = now / 1000 + 60;
    expect(readPreviewToken(signedWith({ r: 'legal', v: grant.version, e: expires }), secret, now).ok).toBe(true);
    for (const fields of [
      { r: 'legal', v: '../../etc', e: expires },
      { r: 'toString', v: grant.version, e: expires },
      { r: 'legal', v: grant.version, e: String(expires) },
    ]) {
      expect(readPreviewToken(signedWith(fields), secret, now), JSON.stringify(fields)).toEqual({
        ok: false,
        reason: 'malformed',
      });
    }
    expect(() => signPreview(grant, 'short')).toThrow('PREVIEW_SECRET must be at least 32 characters');
  });
});

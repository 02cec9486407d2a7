import { describe, expect, it } from 'vitest';
import { ticketCookie, ticketLifetimeSeconds, viewTickets } from './tickets.ts';

const secret = 'a-cookie-secret-of-at-least-32-characters';
const view = { remote: 'legal', version: '20261126.101500123-3f9a0c1e', route: '/privacy' };
const now = Date.UTC(2026, 10, 26, 10, 30);

describe('view tickets', () => {
  const tickets = viewTickets([secret]);

  it('go in a cookie only the field-data endpoint receives, and name the view’s remote, version and route', () => {
    const { name, value, options } = tickets.issue(view, { now, secure: true });
    expect(name).toBe(ticketCookie('legal'));
    expect(options).toEqual({ path: '/api/rum', httpOnly: true, sameSite: 'strict', secure: true, maxAge: 3600 });
    expect(tickets.read(value, view, now)).toMatch(/^[\w-]{8}$/);
    // Each view its own ticket.
    expect(tickets.read(tickets.issue(view, { now }).value, view, now)).not.toBe(tickets.read(value, view, now));
  });

  it('each carry a nonce of their own, however many views are served', () => {
    // Past the pool the nonces are drawn from, several times over.
    const nonces = Array.from({ length: 5000 }, () => tickets.read(tickets.issue(view, { now }).value, view, now));
    expect(nonces.every((nonce) => nonce && /^[\w-]{8}$/.test(nonce))).toBe(true);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it('are good for the same remote, version and route only, within their hour', () => {
    const { value } = tickets.issue(view, { now });
    // A ticket of one route of a remote counts no view of another of its routes.
    expect(tickets.read(value, { ...view, route: '/terms' }, now)).toBeUndefined();
    expect(tickets.read(value, { ...view, version: '20261126.111500123-00000000' }, now)).toBeUndefined();
    expect(tickets.read(value, { ...view, remote: 'vendor' }, now)).toBeUndefined();
    expect(tickets.read(value, view, now + ticketLifetimeSeconds * 1000)).toBeDefined();
    expect(tickets.read(value, view, now + ticketLifetimeSeconds * 1000 + 1000)).toBeUndefined();
    expect(tickets.read(value, view, now - 120_000)).toBeUndefined();
  });

  it('are refused when forged, tampered with or malformed', () => {
    const { value } = tickets.issue(view, { now });
    const [payload, signature] = value.split('.') as [string, string];
    expect(viewTickets(['another-secret-of-at-least-32-characters']).read(value, view, now)).toBeUndefined();
    const otherPayload = tickets.issue({ ...view, version: 'forged' }, { now }).value.split('.')[0];
    expect(tickets.read(`${otherPayload}.${signature}`, { ...view, version: 'forged' }, now)).toBeUndefined();
    for (const malformed of [undefined, '', payload, `${value}.x`, `.${signature}`, 'x'.repeat(700)]) {
      expect(tickets.read(malformed, view, now)).toBeUndefined();
    }
  });

  it('are still read while the secret is replaced: the new one signs, the old one verifies', () => {
    const old = viewTickets([secret]).issue(view, { now }).value;
    const rotated = viewTickets(['the-new-cookie-secret-of-32-characters-or-more', secret]);
    expect(rotated.read(old, view, now)).toBeDefined();
  });
});

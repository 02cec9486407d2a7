import { describe, expect, it } from 'vitest';
import { addMonths, clock, daysLeft, deadlineOf, extensionRefusal } from './deadline.ts';

const at = (iso: string) => new Date(iso);

describe('the deadline rule', () => {
  it('is one calendar month from receipt, on the month’s last day when it has no such date', () => {
    expect(deadlineOf({ receivedAt: '2026-11-23T10:00:00.000Z', extendedMonths: 0 }).toISOString()).toBe(
      '2026-12-23T10:00:00.000Z',
    );
    expect(addMonths(at('2027-01-31T08:00:00.000Z'), 1).toISOString()).toBe('2027-02-28T08:00:00.000Z');
    expect(addMonths(at('2028-01-31T08:00:00.000Z'), 1).toISOString()).toBe('2028-02-29T08:00:00.000Z');
    expect(addMonths(at('2026-12-15T23:30:00.000Z'), 1).toISOString()).toBe('2027-01-15T23:30:00.000Z');
  });

  it('moves by the months of an extension, counted from receipt', () => {
    const request = { receivedAt: '2027-01-31T08:00:00.000Z', extendedMonths: 2 };
    expect(deadlineOf(request).toISOString()).toBe('2027-04-30T08:00:00.000Z');
    expect(daysLeft(request, at('2027-04-20T08:00:00.000Z'))).toBe(10);
  });

  it('counts whole days left, rounding up, and goes negative once the deadline has passed', () => {
    const request = { receivedAt: '2026-11-01T12:00:00.000Z', extendedMonths: 0 };
    expect(daysLeft(request, at('2026-11-29T12:00:00.000Z'))).toBe(2);
    expect(daysLeft(request, at('2026-11-29T12:00:01.000Z'))).toBe(2);
    expect(daysLeft(request, at('2026-12-01T11:00:00.000Z'))).toBe(1);
    expect(daysLeft(request, at('2026-12-01T12:00:00.000Z'))).toBe(0);
    expect(daysLeft(request, at('2026-12-04T13:00:00.000Z'))).toBe(-3);
    expect(clock({ ...request, status: 'verified' }, at('2026-12-04T13:00:00.000Z'))).toBe('OVERDUE 3d');
    expect(clock({ ...request, status: 'received' }, at('2026-11-26T12:00:00.000Z'))).toBe('5d left');
    expect(clock({ ...request, status: 'completed' }, at('2026-12-04T13:00:00.000Z'))).toBe('-');
  });

  it('allows an extension only while the first month runs, and two months in all', () => {
    const received = { receivedAt: '2026-11-01T12:00:00.000Z', extendedMonths: 0 };
    const inTheMonth = at('2026-11-30T12:00:00.000Z');
    expect(extensionRefusal(received, 2, inTheMonth)).toBeUndefined();
    expect(extensionRefusal({ ...received, extendedMonths: 1 }, 1, inTheMonth)).toBeUndefined();
    expect(extensionRefusal({ ...received, extendedMonths: 1 }, 2, inTheMonth)).toMatch(/already extended by 1/);
    expect(extensionRefusal(received, 3, inTheMonth)).toMatch(/1 or 2 months/);
    expect(extensionRefusal(received, 0, inTheMonth)).toMatch(/1 or 2 months/);
    expect(extensionRefusal(received, 1, at('2026-12-01T12:00:00.000Z'))).toMatch(/only while the first month/);
  });
});

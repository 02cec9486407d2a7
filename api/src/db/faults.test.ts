import { afterEach, describe, expect, it, vi } from 'vitest';
import { recentDatabaseFault, sawDatabaseFault } from './faults.ts';

const fault = (code: string, message = 'it failed') => Object.assign(new Error(message), { code });

describe('the database fault the health checks report', () => {
  afterEach(() => vi.useRealTimers());

  it('ends at the first check that reaches the database after it was not reached (PostgreSQL back)', () => {
    sawDatabaseFault(fault('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'));
    expect(recentDatabaseFault(30_000, false)).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    expect(recentDatabaseFault(30_000, true)).toBeUndefined();
    expect(recentDatabaseFault(30_000, false)).toBeUndefined();
    sawDatabaseFault(new Error('Connection terminated unexpectedly'));
    expect(recentDatabaseFault(30_000, true)).toBeUndefined();
  });

  it('stays its window when the database answered with it (a full disk, a lock), reached or not', () => {
    vi.useFakeTimers();
    sawDatabaseFault(fault('SQLITE_FULL', 'database or disk is full'));
    expect(recentDatabaseFault(30_000, true)).toBe('SQLITE_FULL: database or disk is full');
    sawDatabaseFault(fault('55P03', 'canceling statement due to lock timeout'));
    vi.advanceTimersByTime(29_000);
    expect(recentDatabaseFault(30_000, true)).toBe('55P03: canceling statement due to lock timeout');
    vi.advanceTimersByTime(2_000);
    expect(recentDatabaseFault(30_000, true)).toBeUndefined();
  });
});

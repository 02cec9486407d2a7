import { describe, expect, it } from 'vitest';
import { readConfig, readJudgeSettings, readTrustProxy } from './config.ts';
import { SettingsError } from './settings-reader.ts';
import { defaultJudgeSettings } from './judge/judge.ts';

describe('TRUST_PROXY', () => {
  it('trusts no hop unless told, a number of proxies, or their addresses', () => {
    expect([undefined, '', 'false', '0'].map(readTrustProxy)).toEqual([false, false, false, false]);
    expect(readTrustProxy('2')).toBe(2);
    expect(readTrustProxy('10.0.0.5,10.0.1.0/24')).toBe('10.0.0.5,10.0.1.0/24');
  });

  it('refuses "true", which would believe any address a client makes up', () => {
    expect(() => readTrustProxy('true')).toThrow(/number of proxies/);
  });
});

describe('in production', () => {
  const production = {
    NODE_ENV: 'production',
    PUBLIC_SITE_URL: 'https://gifts.example',
    LOG_HASH_SECRET: 'l'.repeat(32),
    COOKIE_SECRET: 'c'.repeat(32),
  };

  it('starts with the public address and the log key set', () => {
    expect(readConfig(production)).toMatchObject({ siteUrl: 'https://gifts.example', logHashSecret: 'l'.repeat(32) });
  });

  it.each(['PUBLIC_SITE_URL', 'LOG_HASH_SECRET', 'COOKIE_SECRET'])('refuses to start without %s', (name) => {
    expect(() => readConfig({ ...production, [name]: '' })).toThrow(`${name} must be set in production`);
  });

  it('names every missing secret at once, not one per start', () => {
    const problems = problemsOf(() => readConfig({ NODE_ENV: 'production' }));
    expect(problems).toEqual([
      expect.stringMatching(/^PUBLIC_SITE_URL must be set in production/),
      expect.stringMatching(/^LOG_HASH_SECRET must be set in production/),
      expect.stringMatching(/^COOKIE_SECRET must be set in production/),
    ]);
  });

  it('names every wrong value at once: ports, addresses, secrets too short, the database, the data folder', () => {
    const problems = problemsOf(() =>
      readConfig(
        {
          ...production,
          API_PORT: 'abc',
          PUBLIC_SITE_URL: 'notaurl',
          DATABASE_URL: 'notaurl',
          METRICS_TOKEN: 'x',
          LOG_HASH_SECRET: 'short',
          RATE_LIMIT_PER_IP: 'many',
          RELEASE_WATCH_CONFIDENCE: '100',
          DATA_DIR: '/proc/nope',
        },
        undefined,
        { server: true },
      ),
    );
    expect(problems).toEqual([
      'DATA_DIR "/proc/nope" cannot be made or written by this user (ENOENT).',
      'API_PORT must be a port from 1 to 65535, not "abc".',
      'DATABASE_URL must be a PostgreSQL address, postgres://user:password@host:5432/database.',
      'RATE_LIMIT_PER_IP must be a whole number, not "many".',
      'PUBLIC_SITE_URL must be an http(s) address such as https://gifts.example, not "notaurl".',
      'METRICS_TOKEN must be at least 32 characters long (openssl rand -hex 32).',
      'LOG_HASH_SECRET must be at least 32 characters long (openssl rand -hex 32).',
      'RELEASE_WATCH_CONFIDENCE must be a percentage below 100, got "100".',
    ]);
    expect(problemsOf(() => readConfig({ ...production, API_PORT: '99999' }))).toEqual([
      'API_PORT must be a port from 1 to 65535, not "99999".',
    ]);
  });
});

/** The problems a settings reader named, in the order it read them. */
function problemsOf(read: () => unknown): string[] {
  try {
    read();
  } catch (error) {
    if (error instanceof SettingsError) return error.problems;
    throw error;
  }
  return [];
}

describe('COOKIE_SECRET', () => {
  it('is one secret, or two while rotating, each of 32 characters or more', () => {
    expect(readConfig({ COOKIE_SECRET: 'a'.repeat(32) }).cookieSecrets).toEqual(['a'.repeat(32)]);
    expect(readConfig({ COOKIE_SECRET: `${'a'.repeat(32)}, ${'b'.repeat(40)}` }).cookieSecrets).toEqual([
      'a'.repeat(32),
      'b'.repeat(40),
    ]);
    expect(() => readConfig({ COOKIE_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(() => readConfig({ COOKIE_SECRET: ['a', 'b', 'c'].map((c) => c.repeat(32)).join(',') })).toThrow(/or two/);
  });
});

describe('webhooks', () => {
  const secret = 'k'.repeat(64);

  it('are off without WEBHOOK_URL, and on with it and a secret, or two while rotating', () => {
    expect(readConfig({}).webhookUrl).toBeUndefined();
    expect(readConfig({ WEBHOOK_URL: 'https://backend.example/hooks', WEBHOOK_SECRET: secret })).toMatchObject({
      webhookUrl: 'https://backend.example/hooks',
      webhookSecrets: [secret],
    });
    const rotating = readConfig({ WEBHOOK_URL: 'https://b.example/h', WEBHOOK_SECRET: `${secret}, ${'n'.repeat(64)}` });
    expect(rotating.webhookSecrets).toEqual([secret, 'n'.repeat(64)]);
  });

  it.each([
    [{ WEBHOOK_URL: 'https://b.example/h' }, /WEBHOOK_SECRET must hold one secret/],
    [{ WEBHOOK_URL: 'https://b.example/h', WEBHOOK_SECRET: 'short' }, /at least 32 characters/],
    [{ WEBHOOK_URL: 'https://b.example/h', WEBHOOK_SECRET: `${secret},${secret},${secret}` }, /or two/],
    [{ WEBHOOK_URL: 'ftp://b.example/h', WEBHOOK_SECRET: secret }, /http\(s\) address/],
    [{ WEBHOOK_URL: 'not a url', WEBHOOK_SECRET: secret }, /not an address/],
  ])('refuses to start with %o', (env, message) => {
    expect(() => readConfig(env)).toThrow(message);
  });
});

describe('the release judge’s settings', () => {
  it('read percentages as shares, with the judge’s own defaults when unset', () => {
    // The defaults are the ones the simulator's table was measured with: a 90% advance read as 90 would be z = 10.
    expect(readJudgeSettings({})).toEqual({ ...defaultJudgeSettings, maxPerNetwork: 5 });
    const set = readJudgeSettings({
      RELEASE_WATCH_CONFIDENCE: '99',
      RELEASE_WATCH_ERROR_MARGIN: '1.5',
      RELEASE_WATCH_VITALS_MARGIN: '50',
    });
    expect([set.confidence, set.errorMargin.absolute, set.vitalsMargin]).toEqual([0.99, 0.015, 0.5]);
    // Minutes, fractions and 0 (abort at the first "worse") included; nothing negative or not a number.
    expect(readJudgeSettings({ RELEASE_WATCH_CONFIRM_MINUTES: '0.05' }).confirmMinutes).toBe(0.05);
    expect(readJudgeSettings({ RELEASE_WATCH_CONFIRM_MINUTES: '0' }).confirmMinutes).toBe(0);
    for (const value of ['-1', 'soon']) {
      expect(() => readJudgeSettings({ RELEASE_WATCH_CONFIRM_MINUTES: value })).toThrow(
        /RELEASE_WATCH_CONFIRM_MINUTES/,
      );
    }
  });

  it('refuse a confidence of 100% or more, and a storage budget that is not above 0', () => {
    expect(() => readJudgeSettings({ RELEASE_WATCH_CONFIDENCE: '100' })).toThrow(/RELEASE_WATCH_CONFIDENCE/);
    expect(() => readJudgeSettings({ RELEASE_WATCH_ADVANCE_CONFIDENCE: 'high' })).toThrow(/above 0/);
    const base = { PUBLIC_SITE_URL: 'https://example.test', LOG_HASH_SECRET: 'x'.repeat(32) };
    for (const budget of ['0', '-1', 'lots']) {
      expect(() => readConfig({ ...base, FIELD_DATA_MAX_MB: budget })).toThrow(
        /FIELD_DATA_MAX_MB must be a number above 0/,
      );
    }
  });
});

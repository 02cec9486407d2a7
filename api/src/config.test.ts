import { describe, expect, it } from 'vitest';
import { readConfig, readTrustProxy } from './config.ts';

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
  const production = { NODE_ENV: 'production', PUBLIC_SITE_URL: 'https://gifts.example', LOG_HASH_SECRET: 's3cret' };

  it('starts with the public address and the log key set', () => {
    expect(readConfig(production)).toMatchObject({ siteUrl: 'https://gifts.example', logHashSecret: 's3cret' });
  });

  it.each(['PUBLIC_SITE_URL', 'LOG_HASH_SECRET'])('refuses to start without %s', (name) => {
    expect(() => readConfig({ ...production, [name]: '' })).toThrow(`${name} must be set in production`);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { collects, fieldDataView, startFieldData, versionOf } from './field-data.ts';

const chrome =
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

describe('field data', () => {
  it('collects for visitors, an automated browser with an ordinary user agent included', () => {
    expect(collects({ userAgent: chrome, doNotTrack: null })).toBe(true);
    expect(collects({ userAgent: chrome.replace('Chrome', 'HeadlessChrome'), doNotTrack: null })).toBe(true);
  });

  it('collects nothing for Do Not Track, Global Privacy Control, or a crawler', () => {
    expect(collects({ userAgent: chrome, doNotTrack: '1' })).toBe(false);
    expect(collects({ userAgent: chrome, doNotTrack: null, globalPrivacyControl: true })).toBe(false);
    for (const bot of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    ]) {
      expect(collects({ userAgent: bot, doNotTrack: null }), bot).toBe(false);
    }
  });

  it('names a remote’s version as the manifest gives it', () => {
    expect(versionOf('/remotes/vendor/20261125.082733.919-38a1bd95/remoteEntry.js')).toBe(
      '20261125.082733.919-38a1bd95',
    );
    expect(versionOf('https://cdn.example/remotes/legal/20261125.0-ab/remoteEntry.js')).toBe('20261125.0-ab');
    expect(versionOf('/remotes/vendor/remoteEntry.js?v=OKG9lX1XxU')).toBe('OKG9lX1XxU');
    expect(versionOf(undefined)).toBe('none');
  });
});

describe('a view reached by a client-side link', () => {
  it('asks the site for its ticket, as a first load brings one; the not-found page has none to ask for', () => {
    const sendBeacon = vi.fn((_url: string, _data?: string) => true);
    vi.stubGlobal('navigator', { userAgent: 'Mozilla/5.0', doNotTrack: null, sendBeacon });
    startFieldData();
    fieldDataView('/vendor');
    fieldDataView('/no-such-page');
    const asked = sendBeacon.mock.calls.map(([url]) => url).filter((url) => url.startsWith('/rum-ticket'));
    expect(asked).toEqual(['/rum-ticket?path=%2Fvendor']);
    vi.unstubAllGlobals();
  });
});

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
    const fetch = vi.fn(async (_url: string) => new Response(''));
    vi.stubGlobal('navigator', { userAgent: 'Mozilla/5.0', doNotTrack: null, sendBeacon });
    vi.stubGlobal('fetch', fetch);
    startFieldData();
    fieldDataView('/vendor');
    fieldDataView('/no-such-page');
    expect(fetch.mock.calls.map(([url]) => url)).toEqual(['/rum-ticket?path=%2Fvendor']);
    vi.unstubAllGlobals();
  });
});

describe("a view's ticket", () => {
  it("goes in the view's beacon as its own load gave it, whatever cookie a later page of the remote set", async () => {
    const sendBeacon = vi.fn((_url: string, _data?: Blob) => true);
    vi.stubGlobal('navigator', { userAgent: 'Mozilla/5.0', doNotTrack: null, sendBeacon });
    vi.spyOn(performance, 'getEntriesByType').mockReturnValue([
      { serverTiming: [{ name: 'view-ticket', description: 'first.view' }] } as unknown as PerformanceEntry,
    ]);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('second.view')),
    );
    startFieldData();
    fieldDataView('/vendor'); // the landing view's beacon goes, then /vendor asks for its own
    await new Promise((resolve) => setTimeout(resolve));
    fieldDataView('/privacy');
    const reports = await Promise.all(
      sendBeacon.mock.calls
        .filter(([url]) => url === '/api/rum')
        .map(async ([, body]) => JSON.parse(await body!.text()) as { route: string; ticket?: string }),
    );
    expect(reports.map(({ route, ticket }) => [route, ticket])).toEqual([
      ['/', 'first.view'],
      ['/vendor', 'second.view'],
    ]);
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
});

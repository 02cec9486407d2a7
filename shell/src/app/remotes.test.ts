import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const runtime = vi.hoisted(() => ({ loadRemote: vi.fn(), registerRemotes: vi.fn() }));
vi.mock('@module-federation/runtime', () => runtime);

const Page = () => null;

async function freshModule() {
  vi.resetModules();
  return import('./remotes.ts');
}

function serveManifest(manifest: unknown, status = 200) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify(manifest), { status })),
  );
}

describe('loadPage', () => {
  afterEach(() => vi.restoreAllMocks());
  beforeEach(() => {
    runtime.loadRemote.mockReset();
    runtime.registerRemotes.mockReset();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
  });

  it('registers the remote from the manifest and returns its page component', async () => {
    serveManifest({ legal: '/remotes/legal/remoteEntry.js' });
    runtime.loadRemote.mockResolvedValue({ default: Page });
    const { loadPage } = await freshModule();
    await expect(loadPage('legal', './privacy-page')).resolves.toEqual({ ok: true, Page });
    expect(runtime.registerRemotes).toHaveBeenCalledWith(
      [{ name: 'legal', entry: '/remotes/legal/remoteEntry.js', type: 'module' }],
      { force: false },
    );
    expect(runtime.loadRemote).toHaveBeenCalledWith('legal/privacy-page');
  });

  it('reports a remote absent from the manifest as not deployed without loading anything', async () => {
    serveManifest({ legal: '/remotes/legal/remoteEntry.js' });
    const { loadPage } = await freshModule();
    await expect(loadPage('vendor', './vendor-page')).resolves.toEqual({ ok: false, reason: 'not-deployed' });
    expect(runtime.loadRemote).not.toHaveBeenCalled();
  });

  it('retries a failed load once, with a fresh entry URL, and succeeds', async () => {
    serveManifest({ legal: '/remotes/legal/remoteEntry.js' });
    runtime.loadRemote.mockRejectedValueOnce(new Error('network down')).mockResolvedValueOnce({ default: Page });
    const { loadPage } = await freshModule();
    await expect(loadPage('legal', './terms-page')).resolves.toEqual({ ok: true, Page });
    expect(runtime.loadRemote).toHaveBeenCalledTimes(2);
    expect(runtime.registerRemotes).toHaveBeenLastCalledWith(
      [{ name: 'legal', entry: '/remotes/legal/remoteEntry.js?retry=1', type: 'module' }],
      { force: true },
    );
    expect(console.error).not.toHaveBeenCalled();
  });

  it('gives up after the retry, logs the failure once and never rejects', async () => {
    serveManifest({ legal: '/remotes/legal/remoteEntry.js' });
    runtime.loadRemote.mockRejectedValue(new Error('gone'));
    const { loadPage, reloadPage } = await freshModule();
    await expect(loadPage('legal', './terms-page')).resolves.toEqual({ ok: false, reason: 'failed' });
    await expect(loadPage('legal', './privacy-page')).resolves.toEqual({ ok: false, reason: 'failed' });
    await expect(reloadPage('legal', './terms-page')).resolves.toEqual({ ok: false, reason: 'failed' });
    expect(console.error).toHaveBeenCalledTimes(1);
  });

  it('treats an unreadable manifest as a failure and reads it again on retry', async () => {
    serveManifest('oops', 500);
    const { loadPage, reloadPage } = await freshModule();
    await expect(loadPage('legal', './terms-page')).resolves.toEqual({ ok: false, reason: 'failed' });
    serveManifest({ legal: '/remotes/legal/remoteEntry.js' });
    runtime.loadRemote.mockResolvedValue({ default: Page });
    await expect(reloadPage('legal', './terms-page')).resolves.toEqual({ ok: true, Page });
  });

  it('refuses an entry outside the allowed origins, logs it once and loads nothing', async () => {
    serveManifest({ legal: 'https://evil.example/remoteEntry.js' });
    const { loadPage } = await freshModule();
    await expect(loadPage('legal', './terms-page')).resolves.toEqual({ ok: false, reason: 'refused' });
    await expect(loadPage('legal', './privacy-page')).resolves.toEqual({ ok: false, reason: 'refused' });
    expect(runtime.registerRemotes).not.toHaveBeenCalled();
    expect(console.error).toHaveBeenCalledTimes(1);
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('outside the allowed origins'));
  });

  it('ignores manifest entries for remotes the site does not know', async () => {
    serveManifest({ evil: 'https://elsewhere.example/remoteEntry.js', legal: 42 });
    const { loadPage } = await freshModule();
    await expect(loadPage('legal', './terms-page')).resolves.toEqual({ ok: false, reason: 'not-deployed' });
    expect(runtime.registerRemotes).not.toHaveBeenCalled();
  });
});

import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSiteServer } from '../server.ts';
import { keptPageForms } from './page-forms.ts';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

/** A page as a release switches it: written beside, then renamed into place. */
function replaceFile(path: string, content: string) {
  writeFileSync(`${path}.next`, content);
  renameSync(`${path}.next`, path);
}

const entry = (version: string) => `/remotes/vendor/${version}/remoteEntry.js`;
/** The vendor at `version`, and a share-location build (its pages are rendered per address). */
const manifestOf = (version: string) =>
  JSON.stringify({
    vendor: entry(version),
    share_location: '/remotes/share-location/20261120.090000000-33333333/remoteEntry.js',
  });

describe('pages kept in memory, compressed once', () => {
  const root = mkdtempSync(join(tmpdir(), 'site-forms-'));
  const manifestFile = join(root, 'remotes.json');
  const logs: { msg: string; page?: string }[] = [];
  let app: FastifyInstance;

  beforeAll(async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `<p>Gift idea ${i}</p>`).join('');
    writeFile(
      join(root, 'shell/dist/index.html'),
      `<!doctype html><html><head><title>shell</title></head><body><div id="root">${filler}</div></body></html>`,
    );
    writeFileSync(manifestFile, manifestOf('20261120.090000000-11111111'));
    const stream = { write: (line: string) => logs.push(JSON.parse(line)) };
    app = await createSiteServer({ root, manifestFile, logger: { level: 'info', stream } });
  });
  afterAll(() => app.close());

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ url, headers });
  const compressions = (page: string) =>
    logs.filter((line) => line.msg === 'Page kept in memory, compressed' && line.page === page).length;

  it('compresses a page once however many requests arrive at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => get('/vendor', { 'accept-encoding': i % 2 ? 'br' : 'gzip, deflate' })),
    );
    expect(answers.every((answer) => answer.statusCode === 200)).toBe(true);
    await get('/vendor', { 'accept-encoding': 'br' });
    await vi.waitFor(() => expect(compressions('/vendor')).toBe(1));
  });

  it('answers br, gzip and identity with the same page, each with its own ETag, varying by Accept-Encoding', async () => {
    const br = await get('/vendor', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    const gzip = await get('/vendor', { 'accept-encoding': 'gzip;q=1, br;q=0' });
    const identity = await get('/vendor');
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(identity.headers['content-encoding']).toBeUndefined();
    const page = identity.rawPayload.toString();
    expect(page).toContain('Gift idea 399');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(page);
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(page);
    expect(br.rawPayload.length).toBeLessThan(gzip.rawPayload.length);
    const etags = [br, gzip, identity].map((answer) => answer.headers.etag);
    expect(new Set(etags).size).toBe(3);
    for (const answer of [br, gzip, identity]) {
      expect(answer.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(answer.headers.vary).toContain('Accept-Encoding');
      expect(answer.headers.vary).toContain('Cookie');
      expect(answer.headers['cache-control']).toBe('no-cache');
    }
  });

  it('answers 304 with no body to the current ETag, and the page to an old one', async () => {
    const first = await get('/vendor', { 'accept-encoding': 'br' });
    const etag = String(first.headers.etag);
    const again = await get('/vendor', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['cache-control']).toBe('no-cache');
    const stale = await get('/vendor', { 'accept-encoding': 'br', 'if-none-match': '"an-older-page"' });
    expect(stale.statusCode).toBe(200);
    expect(brotliDecompressSync(stale.rawPayload).toString()).toContain('Gift idea');
    // The ETag of one form is not the other's: a gzip cache holding the br ETag gets the gzip page.
    const otherForm = await get('/vendor', { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(otherForm.statusCode).toBe(200);
  });

  it('serves a release’s page with a new ETag without a restart, compressed once more', async () => {
    const before = await get('/vendor', { 'accept-encoding': 'br' });
    replaceFile(manifestFile, manifestOf('20261125.090000000-22222222'));
    await vi.waitFor(async () => {
      const after = await get('/vendor', { 'accept-encoding': 'br', 'if-none-match': String(before.headers.etag) });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(brotliDecompressSync(after.rawPayload).toString()).toContain('20261125.090000000-22222222');
    });
    expect(compressions('/vendor')).toBe(2);
  });

  it('never keeps a page that holds a form post’s outcome or a preview: those are rendered for one visitor', async () => {
    const share = await get('/share-location/gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7', {
      'accept-encoding': 'br',
    });
    expect(share.statusCode).toBe(200);
    expect(compressions('/share-location/gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7')).toBe(0);
    // Still compressed for the one request it was made for, with no ETag that a cache could share.
    expect(share.headers['content-encoding']).toBe('br');
    expect(share.headers.vary).toContain('Accept-Encoding');
    expect(share.headers.etag).toBeUndefined();
    expect(brotliDecompressSync(share.rawPayload).toString()).toContain('Gift idea 399');
    const plain = await get('/share-location/gift_4f2a9c7d1e8b3a6f0c5e7b9d2a4f6c8e1b3d5f7');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('Gift idea 399');
  });
});

describe('the pages kept in memory, bounded', () => {
  const log = { info: () => undefined } as never;
  const page = (n: number) => `<!doctype html><p>${String(n).repeat(5_000)}</p>${Math.random()}`;

  it('keep at most their byte budget, the oldest going first, however many origins ask', async () => {
    const kept = keptPageForms({ log, maxBytes: 200_000 });
    for (let n = 0; n < 200; n++) await kept.formsOf(`http://127.0.0.1:${4000 + n}\n/`, page(n), '', () => page(n));
    const { pages, bytes } = kept.size();
    expect(bytes).toBeLessThanOrEqual(200_000);
    expect(pages).toBeGreaterThan(1);
    expect(pages).toBeLessThan(200);
  });

  it('keep at most their count', async () => {
    const kept = keptPageForms({ log, maxEntries: 5 });
    for (let n = 0; n < 50; n++) await kept.formsOf(`origin-${n}\n/`, 'same', '', () => page(n));
    expect(kept.size().pages).toBe(5);
  });
});

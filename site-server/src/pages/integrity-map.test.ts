import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { allowingImportMap, pageIntegrity, withIntegrity } from './integrity-map.ts';

const version = '20261127.100000000-aaaaaaaa';
const cdn = 'https://cdn.example/remotes/';
const sri = (text: string) => `sha256-${createHash('sha256').update(text).digest('base64')}`;

/** A released vendor build in REMOTES_DIR: its integrity record and federation manifest. */
function released() {
  const remotesDir = mkdtempSync(join(tmpdir(), 'integrity-map-'));
  const folder = join(remotesDir, 'vendor', version);
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'integrity.json'),
    JSON.stringify({
      'remoteEntry.js': sri('entry'),
      'assets/vendor-page-1.js': sri('page'),
      'assets/vendor-page-1.css': sri('css'),
      // A build that names its chunks .mjs: pinned alike.
      'assets/vendor-chunk-2.mjs': sri('chunk'),
    }),
  );
  const assets = { js: { sync: ['assets/vendor-page-1.js'], async: [] }, css: { sync: ['assets/vendor-page-1.css'] } };
  writeFileSync(join(folder, 'mf-manifest.json'), JSON.stringify({ exposes: [{ path: './vendor-page', assets }] }));
  return remotesDir;
}

describe('what a page checks its released remotes’ files against', () => {
  const integrityOf = pageIntegrity({ root: '/nowhere', remotesDir: released(), remotesBaseUrl: cdn });
  const entry = `${cdn}vendor/${version}/remoteEntry.js`;

  it('names every script of the build in an import map, the second try of its entry too, and each module’s stylesheets', () => {
    const page = integrityOf({ vendor: entry, legal: '/remotes/legal/remoteEntry.js' });
    const importMap = JSON.parse(/<script type="importmap">(.*?)<\/script>/.exec(page.head)![1]!);
    expect(importMap).toEqual({
      integrity: {
        [entry]: sri('entry'),
        [`${entry}?retry=1`]: sri('entry'),
        [`${cdn}vendor/${version}/assets/vendor-page-1.js`]: sri('page'),
        [`${cdn}vendor/${version}/assets/vendor-chunk-2.mjs`]: sri('chunk'),
      },
    });
    // A remote without recorded integrity (a workspace's build) is not named: it loads as before.
    const data = JSON.parse(/id="remotes-integrity">(.*?)<\/script>/.exec(page.head)![1]!);
    expect(data).toEqual({
      vendor: {
        entry,
        styles: { './vendor-page': [[`${cdn}vendor/${version}/assets/vendor-page-1.css`, sri('css')]] },
      },
    });
  });

  it('allows its import map in the page’s policy by its hash, and no other inline script', () => {
    const page = integrityOf({ vendor: entry });
    const importMap = /<script type="importmap">(.*?)<\/script>/.exec(page.head)![1]!;
    expect(page.scriptSource).toBe(`'${sri(importMap)}'`);
    expect(allowingImportMap("default-src 'self';script-src 'self';style-src 'self'", page)).toBe(
      `default-src 'self';script-src 'self' ${page.scriptSource};style-src 'self'`,
    );
  });

  it('puts it first in the head, before any module script, and nothing in a page without released remotes', () => {
    const html = '<!doctype html><html><head>\n<meta charset="UTF-8" /><script type="module" src="/a.js"></script>';
    const page = withIntegrity(html, integrityOf({ vendor: entry }));
    expect(page.indexOf('<script type="importmap">')).toBeGreaterThan(page.indexOf('<meta charset'));
    expect(page.indexOf('<script type="importmap">')).toBeLessThan(page.indexOf('<script type="module"'));
    const none = integrityOf({ legal: '/remotes/legal/remoteEntry.js' });
    expect(withIntegrity(html, none)).toBe(html);
    expect(allowingImportMap("script-src 'self'", none)).toBe("script-src 'self'");
  });

  it('cannot be ended early by a file name', () => {
    const remotesDir = released();
    const folder = join(remotesDir, 'vendor', version);
    const names = { 'remoteEntry.js': sri('entry'), 'assets/</script><script>alert(1)</script>.js': sri('x') };
    writeFileSync(join(folder, 'integrity.json'), JSON.stringify(names));
    const page = pageIntegrity({ root: '/nowhere', remotesDir, remotesBaseUrl: cdn })({ vendor: entry });
    expect(page.head.match(/<\/script>/g)).toHaveLength(2);
    expect(page.head).toContain('\\u003c/script>\\u003cscript>alert(1)');
  });

  it('resolves the shared modules’ names to the shell’s module of them, and follows a rebuilt shell', async () => {
    const root = mkdtempSync(join(tmpdir(), 'integrity-map-shell-'));
    mkdirSync(join(root, 'shell', 'dist', '.vite'), { recursive: true });
    const index = join(root, 'shell', 'dist', '.vite', 'shared-modules.json');
    writeFileSync(index, JSON.stringify({ file: 'assets/shared-modules-1.js', specifiers: ['react', '@gift/router'] }));
    const withShell = pageIntegrity({ root, remotesDir: released(), remotesBaseUrl: cdn });
    const importMap = (page: { head: string }) =>
      JSON.parse(/<script type="importmap">(.*?)<\/script>/.exec(page.head)![1]!) as {
        imports?: Record<string, string>;
        integrity?: Record<string, string>;
      };
    const page = withShell({ vendor: entry });
    expect(importMap(page).imports).toEqual({
      react: '/assets/shared-modules-1.js',
      '@gift/router': '/assets/shared-modules-1.js',
    });
    expect(importMap(page).integrity?.[entry]).toBe(sri('entry'));
    expect(page.sharedModules).toBe('/assets/shared-modules-1.js');
    // A page without released remotes has the import map too (its page modules need the names), and no integrity.
    const unreleased = withShell({ legal: '/remotes/legal/remoteEntry.js' });
    expect(importMap(unreleased)).toEqual({ imports: importMap(page).imports });
    expect(unreleased.head).not.toContain('remotes-integrity');
    writeFileSync(index, JSON.stringify({ file: 'assets/shared-modules-2.js', specifiers: ['react'] }));
    await vi.waitFor(() => expect(withShell.sharedModulesFile()).toBe('/assets/shared-modules-2.js'));
  });

  it('names every build’s page modules for a client-side visit, with their stylesheets’ integrity when released', () => {
    const remotesDir = released();
    const folder = join(remotesDir, 'vendor', version);
    const modules = {
      './vendor-page': {
        file: 'assets/vendor-vendor-page-1.js',
        imports: ['assets/chunk-1.js'],
        css: ['assets/vendor-page-1.css'],
      },
    };
    writeFileSync(join(folder, 'page-modules.json'), JSON.stringify(modules));
    const page = pageIntegrity({ root: '/nowhere', remotesDir, remotesBaseUrl: cdn })({ vendor: entry });
    const listed = JSON.parse(/id="remotes-page-modules">(.*?)<\/script>/.exec(page.head)![1]!);
    expect(listed).toEqual({
      vendor: {
        entry,
        modules: {
          './vendor-page': {
            js: [`${cdn}vendor/${version}/assets/vendor-vendor-page-1.js`, `${cdn}vendor/${version}/assets/chunk-1.js`],
            css: [[`${cdn}vendor/${version}/assets/vendor-page-1.css`, sri('css')]],
          },
        },
      },
    });
    // A build without them (released before page modules) is not listed: it loads through federation.
    expect(integrityOf({ vendor: entry }).head).not.toContain('remotes-page-modules');
  });
});

import { createElement, Suspense } from 'react';
import { renderToString } from 'react-dom/server';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pageModulesOf, remoteStylesheet, shellStart, withoutServerErrors } from './prerender.ts';

function Broken(): never {
  throw new Error('secret failure at /srv/site/remotes/vendor/ssr/vendor-page.js:12');
}

describe('a page whose server render failed', () => {
  it('carries neither the error’s message nor its stack, and is still left to the browser', () => {
    const html = renderToString(
      createElement(
        'main',
        null,
        createElement(Suspense, { fallback: createElement('p', null, 'Loading') }, createElement(Broken)),
      ),
    );
    // React's development build (the one tests run) writes both into the page: the case this guards against.
    expect(html).toContain('secret failure');
    const sent = withoutServerErrors(html);
    expect(sent).not.toContain('secret failure');
    expect(sent).not.toMatch(/data-(msg|stck|cstck)=/);
    expect(sent).toContain('<!--$!-->');
    expect(sent).toContain('<p>Loading</p>');
  });
});

describe("a remote's stylesheet in a page", () => {
  const folders: string[] = [];
  afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true, force: true })));
  const build = (css: string) => {
    const folder = mkdtempSync(join(tmpdir(), 'stylesheet-'));
    folders.push(folder);
    mkdirSync(join(folder, 'assets'));
    writeFileSync(join(folder, 'assets', 'page.css'), css);
    return folder;
  };
  const sha256 = (text: string) => `sha256-${createHash('sha256').update(text).digest('base64')}`;
  const href = 'https://cdn.example/vendor/v1/assets/page.css';

  it('is in the page, so that the first paint waits for no request, with a link the remote finds and never fetches', () => {
    const css = 'main h1{color:red}';
    expect(remoteStylesheet(build(css), 'assets/page.css', href, sha256(css))).toBe(
      `<style>main h1{color:red}</style><link rel="stylesheet" href="${href}" disabled />`,
    );
  });

  it('cannot close its style element early', () => {
    const html = remoteStylesheet(
      build('a::after{content:"</style><script>alert(1)</script>"}'),
      'assets/page.css',
      href,
      undefined,
    );
    // One end of the element, its own: the text inside it stays text (CSS reads `<\/style>` as `</style>`).
    expect(html.match(/<\/style>/g)).toHaveLength(1);
    expect(html).toMatch(/^<style>[^]*<\\\/style>[^]*<\/style><link /);
  });

  it('is linked with its integrity when its bytes are not what the release recorded: the browser refuses it', () => {
    const folder = build('main h1{min-width:1500px}');
    const recorded = sha256('main h1{color:red}');
    expect(remoteStylesheet(folder, 'assets/page.css', href, recorded)).toBe(
      `<link rel="stylesheet" href="${href}" integrity="${recorded}" crossorigin="anonymous" />`,
    );
  });

  it('is read only from the build’s own stylesheets, whatever its manifest names', () => {
    const folder = build('main h1{color:red}');
    writeFileSync(join(folder, 'secret.css'), 'secret{}');
    for (const named of ['../secret.css', 'assets/../secret.css', 'secret.css', 'assets/page.css/../../secret.css']) {
      expect(remoteStylesheet(join(folder, 'assets'), named, href, undefined)).toBe(
        `<link rel="stylesheet" href="${href}" />`,
      );
    }
  });

  it('is linked when the build on disk lacks it (a server build fetched before stylesheets were part of it)', () => {
    expect(remoteStylesheet(build(''), 'assets/other.css', href, undefined)).toBe(
      `<link rel="stylesheet" href="${href}" />`,
    );
  });
});

describe('what a page needs of the shell to start without the federation runtime', () => {
  const shellWith = (sharedModules?: object) => {
    const root = mkdtempSync(join(tmpdir(), 'shell-start-'));
    mkdirSync(join(root, 'shell', 'dist', '.vite'), { recursive: true });
    if (sharedModules) {
      writeFileSync(join(root, 'shell', 'dist', '.vite', 'shared-modules.json'), JSON.stringify(sharedModules));
    }
    return root;
  };
  const manifest = {
    'index.html': { file: 'assets/index-1.js', imports: ['_react-1.js', '_helper-1.js'] },
    '_react-1.js': { file: 'assets/react-1.js', imports: ['_runtime-1.js'] },
    '_runtime-1.js': { file: 'assets/runtime-1.js' },
    '_helper-1.js': { file: 'assets/helper-1.js' },
    'shared-modules-facade': { file: 'assets/shared-modules-1.js', imports: ['_react-1.js'] },
    'virtual:mf:shell__H_A_I__hostAutoInit__H_A_I__.js': { file: 'assets/hostInit-1.js', imports: ['_helper-1.js'] },
  };

  it('names the app’s entry, every chunk it and the shared modules’ module import, and the host init for later', () => {
    const start = shellStart(shellWith({ file: 'assets/shared-modules-1.js', specifiers: ['react'] }), manifest);
    expect(start).toEqual({
      entry: '/assets/index-1.js',
      chunks: [
        '/assets/index-1.js',
        '/assets/react-1.js',
        '/assets/runtime-1.js',
        '/assets/helper-1.js',
        '/assets/shared-modules-1.js',
      ],
      react: [],
      sharedModules: { file: '/assets/shared-modules-1.js', specifiers: ['react'] },
      hostInit: '/assets/hostInit-1.js',
    });
  });

  it('is nothing for a shell built without the shared modules’ module: its pages start through federation', () => {
    expect(shellStart(shellWith(), manifest)).toBeUndefined();
  });

  it('reads a build’s page modules, and none from a build without them or with a broken index', () => {
    const folder = mkdtempSync(join(tmpdir(), 'page-modules-'));
    expect(pageModulesOf(folder)).toBeUndefined();
    writeFileSync(join(folder, 'page-modules.json'), '{ not json');
    expect(pageModulesOf(folder)).toBeUndefined();
    const modules = { './vendor-page': { file: 'assets/vendor-vendor-page-1.js', imports: [], css: [] } };
    writeFileSync(join(folder, 'page-modules.json'), JSON.stringify(modules));
    expect(pageModulesOf(folder)).toEqual(modules);
  });
});

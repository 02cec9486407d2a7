import { createElement, Suspense } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { withoutServerErrors } from './prerender.ts';

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

import { useEffect, useRef } from 'react';
import { brandFontKey } from '@gift/federation';

const family = 'Inter Variable';
let fetched = false;
/** The brand font's face as this script loaded it, to give the document when the next page takes it up. */
let loadedFace: FontFace | undefined;

/** The page's own `@font-face` rule of the brand font (tokens.css, inlined in the page's head). */
function brandFontRule(): CSSFontFaceRule | undefined {
  for (const sheet of document.styleSheets) {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue;
    }
    for (const rule of rules) {
      if (
        rule instanceof CSSFontFaceRule &&
        rule.style.getPropertyValue('font-family').replaceAll(/["']/g, '') === family
      )
        return rule;
    }
  }
  return undefined;
}

/**
 * Fetches the brand font's file once the page is interactive (tokens.css declares it; nothing uses it until the root
 * has `data-font`), so that it never shares a slow phone's line with what the first paint and hydration need. The
 * page keeps the metric-matched local font it was painted in: a swap now would still move a line that wraps a
 * little differently. The next page the visitor opens uses it (`useBrandFontFromTheNextPage`), and so does the first
 * paint of every page loaded later: the head's first script reads `brandFontKey`, and the file is in the cache.
 *
 * Loaded as a face of this script's own, which waits for the file however late it comes: the page's face is
 * `font-display: optional`, and Firefox and WebKit give up on it (`document.fonts.load` ends in an error) when the file
 * takes more than a moment, as it does on a phone's line; nothing was then remembered and every next page stayed in
 * the local font.
 */
export function fetchBrandFont() {
  if (fetched || loadedFace || document.documentElement.dataset.font !== undefined) return;
  const rule = brandFontRule();
  if (!rule) return;
  const descriptor = (name: string) => rule.style.getPropertyValue(name) || undefined;
  const face = new FontFace(family, rule.style.getPropertyValue('src'), {
    style: descriptor('font-style'),
    weight: descriptor('font-weight'),
    unicodeRange: descriptor('unicode-range'),
    display: 'swap',
  });
  loadedFace = face;
  face
    .load()
    .then(() => {
      fetched = true;
      localStorage.setItem(brandFontKey, '1');
    })
    // Storage refused (a private window, a full disk): the next page loaded starts with the local font again; the file
    // refused (offline): the local font stays.
    .catch(() => {});
}

/**
 * Sets the site in the brand font at the first move to another page, once its file has arrived: the page changes
 * then anyway, in answer to the visitor.
 */
export function useBrandFontFromTheNextPage(pathname: string) {
  const first = useRef(pathname);
  useEffect(() => {
    if (pathname === first.current || !fetched) return;
    if (loadedFace && !document.fonts.has(loadedFace)) document.fonts.add(loadedFace);
    document.documentElement.dataset.font = '';
  }, [pathname]);
}

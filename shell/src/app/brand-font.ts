import { useEffect, useRef } from 'react';
import { brandFontKey } from '@gift/federation';

let fetched = false;

/**
 * Fetches the brand font's file once the page is interactive (tokens.css declares it; nothing uses it until the root
 * has `data-font`), so that it never shares a slow phone's line with what the first paint and hydration need. The
 * page keeps the metric-matched local font it was painted in: a swap now would still move a line that wraps a
 * little differently. The next page the visitor opens uses it (`useBrandFontFromTheNextPage`), and so does the first
 * paint of every page loaded later: the head's first script reads `brandFontKey`, and the file is in the cache.
 */
export function fetchBrandFont() {
  if (fetched || document.documentElement.dataset.font !== undefined) return;
  document.fonts
    .load('1em "Inter Variable"')
    .then((faces) => {
      fetched = faces.length > 0;
      if (fetched) localStorage.setItem(brandFontKey, '1');
    })
    // Storage refused (a private window, a full disk): the next page loaded starts with the local font again.
    .catch(() => {});
}

/**
 * Sets the site in the brand font at the first move to another page, once its file has arrived: the page changes
 * then anyway, in answer to the visitor.
 */
export function useBrandFontFromTheNextPage(pathname: string) {
  const first = useRef(pathname);
  useEffect(() => {
    if (pathname !== first.current && fetched) document.documentElement.dataset.font = '';
  }, [pathname]);
}

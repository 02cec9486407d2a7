/**
 * Stands in for `resize-observer-polyfill`, which react-slick imports: every browser the site supports has
 * ResizeObserver, so the browser build ships no polyfill (about 2.5 KiB compressed on the landing page).
 */
export default globalThis.ResizeObserver;

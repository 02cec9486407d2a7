import { matchRoute } from '@gift/content';
import {
  fieldDataPath,
  maxEntries,
  maxMessage,
  notFoundRoute,
  viewTicketPath,
  type FieldEntry,
  type FieldReport,
} from '@gift/contracts/field-data';
import type { RemoteName } from '@gift/federation';
import { loadedEntry } from './remotes.ts';

/**
 * Field data: what real visitors measure (web vitals) and meet (uncaught errors), one beacon per page view, tagged with
 * the route, the remote that owns it, that remote's live version, the shell's build and phone or desktop. Nothing
 * identifies the visitor (no cookie, no id across views); nothing is collected for crawlers or for a browser that
 * sends Do Not Track or Global Privacy Control. The vitals library is loaded when the page is idle, off the path to
 * its first paint and to hydration.
 */

/** Crawlers and link previewers by user agent; an automated browser with an ordinary user agent counts as a visitor. */
const crawler = /bot\b|crawl|spider|slurp|externalhit|preview/i;

/** Whether this visitor's browser asks not to be followed, or is a crawler's. */
export function collects(nav: Pick<Navigator, 'userAgent' | 'doNotTrack'> & { globalPrivacyControl?: boolean }) {
  if (nav.doNotTrack === '1' || nav.globalPrivacyControl === true) return false;
  return !crawler.test(nav.userAgent);
}

/** A remote's version as its manifest entry names it: `?v=<build>`, or `/remotes/vendor/<version>/remoteEntry.js`. */
export const versionOf = (entry: string | undefined) =>
  entry ? ((/[?&]v=([\w.-]+)/.exec(entry) ?? /([\w.-]+)\/remoteEntry\.js/.exec(entry))?.[1] ?? 'unknown') : 'none';

interface View {
  /** The address the view is of. */
  path: string;
  /** The view's tags but the version, which is read when the beacon goes: its remote may still be loading at first. */
  tags: Omit<FieldReport, 'entries' | 'view' | 'version'>;
  /** Each metric's latest value: web-vitals reports every change, the beacon carries the last. */
  metrics: Map<string, number>;
  /** Whether the view's first beacon, which counts it, has gone. */
  counted: boolean;
  /** The view's own ticket, as the site's answer gave it: its beacons carry it (see `viewTicketTiming`). */
  ticket?: string | undefined;
  errors: Map<string, { error: string; frame?: string; count: number }>;
}

/** The shell's build: the hash in the name of its chunk that holds this module. */
const shellBuild = /-(\w+)\.js$/.exec(import.meta.url)?.[1] ?? 'dev';

const firstFrame = (stack: string | undefined) =>
  stack
    ?.split('\n')
    .find((line) => /:\d+:\d+\)?$/.test(line))
    ?.trim()
    .slice(0, maxMessage);

const oneLine = (text: string) =>
  text
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, maxMessage) || 'Error';

let current: View | undefined;

function viewAt(pathname: string): View {
  const match = matchRoute(pathname);
  const remote = match?.route.remote ?? 'shell';
  return {
    path: pathname,
    tags: {
      route: match?.route.path ?? notFoundRoute,
      remote,
      shell: shellBuild,
      viewport: innerWidth < 768 ? 'phone' : 'desktop',
    },
    metrics: new Map(),
    counted: false,
    errors: new Map(),
  };
}

/** Sends what the view has gathered, once: the first beacon of a view counts it. */
function flush() {
  if (!current) return;
  const started = performance.now();
  const view = current;
  const entries: FieldEntry[] = [
    ...[...view.metrics].map(([metric, value]) => ({ metric: metric as 'LCP', value })),
    ...view.errors.values(),
  ].slice(0, maxEntries);
  if (view.counted && !entries.length) return;
  const { remote } = view.tags;
  const report: FieldReport = {
    ...view.tags,
    version: remote === 'shell' ? shellBuild : versionOf(loadedEntry(remote as RemoteName)),
    ...(!view.counted && { view: true }),
    ticket: view.ticket,
    entries,
  };
  // A beacon: it goes even as the page is closed.
  navigator.sendBeacon(fieldDataPath, new Blob([JSON.stringify(report)], { type: 'application/json' }));
  view.metrics.clear();
  view.errors.clear();
  view.counted = true;
  // What sending took, for `pnpm perf` (its budget: no task of the collector over 20 ms).
  performance.measure('field-data', { start: started });
}

function recordError(message: string, stack?: string) {
  if (!current) return;
  const error = oneLine(message);
  const frame = firstFrame(stack);
  const key = error + frame;
  const known = current.errors.get(key);
  // At most 1,000 of one error a view: the count says "many" well enough.
  if (known) known.count = Math.min(known.count + 1, 1000);
  else current.errors.set(key, { error, ...(frame && { frame }), count: 1 });
}

/**
 * A page view begins: the previous one's beacon goes now (its page is gone from the screen), then the site is asked
 * for the new view's ticket, as a first load brings one, so that a view reached by a link counts as much as one loaded.
 */
export function fieldDataView(pathname: string) {
  if (!current || pathname === current.path) return;
  flush();
  const view = (current = viewAt(pathname));
  if (view.tags.remote === 'shell') return;
  // Kept alive as a beacon is, should the page go at once; its answer is the ticket (and sets the cookie, which a
  // beacon that leaves before the answer arrives brings instead).
  fetch(`${viewTicketPath}?path=${encodeURIComponent(pathname)}`, { method: 'POST', keepalive: true })
    .then((answer) => answer.text())
    .then((ticket) => (view.ticket = ticket), String);
}

/**
 * The ticket this document's own answer gave its first view: the site's first `Server-Timing` entry
 * (`viewTicketTiming`). Should a proxy have put another first, the API finds it no ticket and reads the cookie's.
 */
const loadTicket = () =>
  (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.serverTiming?.[0]
    ?.description;

/**
 * Starts collecting for this page: errors at once (they may come before hydration), the vitals once the page is
 * interactive and then idle. A no-op for crawlers and for a browser that asks not to be followed.
 */
export function startFieldData() {
  if (!collects(navigator)) return;
  current = viewAt(location.pathname);
  current.ticket = loadTicket();
  addEventListener('error', (event) => recordError(event.message, (event.error as Error | undefined)?.stack));
  addEventListener('unhandledrejection', (event) => {
    const reason = event.reason as { message?: unknown; stack?: string } | undefined;
    recordError(String(reason?.message ?? reason), reason?.stack);
  });
  addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && flush());
  addEventListener('pagehide', flush);
}

/** The vitals of this document, into the views they belong to. */
function loadVitals() {
  return import('web-vitals').then((vitals) => {
    // The vitals of the document: LCP, FCP and TTFB belong to the view it was loaded on; INP and CLS, which add up
    // over the document's life, are given to the view on screen when they are reported.
    const landing = current;
    const record = (metric: { name: string; value: number }) =>
      (metric.name !== 'INP' && metric.name !== 'CLS' && landing ? landing : current)?.metrics.set(
        metric.name,
        Math.max(0, metric.value),
      );
    // Every change, kept as the view's latest value: the beacon then never waits on web-vitals' own report.
    for (const on of [vitals.onCLS, vitals.onFCP, vitals.onINP, vitals.onLCP, vitals.onTTFB]) {
      on(record, { reportAllChanges: true });
    }
  });
}

/** Whether the vitals were asked for: once a document. */
let vitalsAsked = false;

/** Loads the vitals once the page is idle, called when it is interactive: before then, the page's own code comes first. */
export function loadVitalsWhenIdle() {
  if (!current || vitalsAsked) return;
  vitalsAsked = true;
  if ('requestIdleCallback' in window) requestIdleCallback(() => void loadVitals(), { timeout: 5000 });
  else setTimeout(() => void loadVitals(), 2000);
}

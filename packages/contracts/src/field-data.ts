import type { FromSchema } from 'json-schema-to-ts';
import { apiPrefix } from './api-prefix.ts';

/** Where the browser sends what real visitors measured (a beacon per page view). */
export const fieldDataPath = `${apiPrefix}/rum`;

/**
 * Where the shell asks for a view's ticket after a client-side navigation (the site server answers it, beside the
 * pages: it knows the visitor's cohort): `POST /rum-ticket?path=<the new address>`.
 */
export const viewTicketPath = '/rum-ticket';

/**
 * The name under which a page's answer (and `/rum-ticket`'s) gives the page its view's ticket in `Server-Timing`, the
 * one response header a page's script can read of its own load (`PerformanceNavigationTiming.serverTiming`), as
 * tracing systems hand a page its trace id. The page keeps its own ticket and its beacon carries it, whatever loads
 * next (another page of the same remote replaces the ticket cookie). `Server-Timing: view-ticket;desc="<ticket>"`.
 */
export const viewTicketTiming = 'view-ticket';

/** The ticket a `Server-Timing` header value hands over, if any. */
export function ticketOfTiming(header: string | null | undefined): string | undefined {
  return header ? new RegExp(`(?:^|,)\\s*${viewTicketTiming};desc="?([\\w.-]+)`).exec(header)?.[1] : undefined;
}

/** The web vitals each view reports, as the `web-vitals` library names them. */
export const vitalNames = ['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const;
export type VitalName = (typeof vitalNames)[number];

/**
 * web-vitals' thresholds: at most `good` is Good, above `poor` is Poor, between is Needs improvement. Milliseconds,
 * except CLS (unitless).
 */
export const vitalThresholds: Record<VitalName, { good: number; poor: number }> = {
  LCP: { good: 2500, poor: 4000 },
  INP: { good: 200, poor: 500 },
  CLS: { good: 0.1, poor: 0.25 },
  FCP: { good: 1800, poor: 3000 },
  TTFB: { good: 800, poor: 1800 },
};

export type VitalRating = 'Good' | 'Needs improvement' | 'Poor';

export function ratingOf(name: VitalName, value: number): VitalRating {
  const { good, poor } = vitalThresholds[name];
  return value <= good ? 'Good' : value <= poor ? 'Needs improvement' : 'Poor';
}

/**
 * What a page is for, which an experiment counts as a conversion of the view it happened in: a click on an App Store
 * or Google Play button, on a link to the vendor portal (log in or register), or a deletion request accepted. A
 * page's goals are beside the route table (`routeGoals`).
 */
export const goalNames = ['store-click', 'portal-click', 'deletion-request'] as const;
export type GoalName = (typeof goalNames)[number];

/**
 * Where a link that reaches a goal pings (`<a ping>`): the browser posts there as it follows the link, from first
 * paint and without scripts, with the page's view ticket (the cookie's path covers it).
 */
export const goalPingPath = `${fieldDataPath}/goal`;
export const goalPing = (goal: GoalName) => `${goalPingPath}/${goal}`;

/** What a view of the not-found page reports as its route (the shell owns it). */
export const notFoundRoute = '/404';

/** The largest beacon the API reads, and the most entries one may carry. */
export const maxEntries = 50;
export const maxMessage = 300;
export const fieldDataLimits = { bodyBytes: 16 * 1024, entries: maxEntries, message: maxMessage } as const;

const tag = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' } as const;

/**
 * One page view's report: where it was (the route as the route table writes it, `/share-location/*` rather than a
 * link's token, the remote that owns it, that remote's live version, the shell's build, phone or desktop) and what was
 * measured there. `view` is set on a view's first beacon only, so that views are counted once. Nothing identifies the
 * visitor. `goal`: the view reached one of its page's goals (a beacon of its own, once per goal and view).
 */
export const fieldReportSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['route', 'remote', 'version', 'shell', 'viewport', 'entries'],
  properties: {
    route: { type: 'string', minLength: 1, maxLength: 100, pattern: '^/[a-z0-9/*_-]*$' },
    remote: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[a-z_]+$' },
    version: tag,
    shell: tag,
    viewport: { type: 'string', enum: ['phone', 'desktop'] },
    view: { type: 'boolean' },
    goal: { type: 'string', enum: goalNames },
    /** The view's ticket, as its page's answer gave it (`viewTicketTiming`); empty or absent: the cookie's is read. */
    ticket: { type: 'string', maxLength: 600, pattern: '^[A-Za-z0-9_.-]*$' },
    entries: {
      type: 'array',
      maxItems: maxEntries,
      items: {
        oneOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: ['metric', 'value'],
            properties: {
              metric: { type: 'string', enum: vitalNames },
              value: { type: 'number', minimum: 0, maximum: 600_000 },
            },
          },
          {
            type: 'object',
            additionalProperties: false,
            required: ['error', 'count'],
            properties: {
              error: { type: 'string', minLength: 1, maxLength: maxMessage, format: 'single-line' },
              frame: { type: 'string', maxLength: maxMessage, format: 'single-line' },
              count: { type: 'integer', minimum: 1, maximum: 1000 },
            },
          },
        ],
      },
    },
  },
} as const;

export type FieldReport = FromSchema<typeof fieldReportSchema>;
export type FieldEntry = FieldReport['entries'][number];

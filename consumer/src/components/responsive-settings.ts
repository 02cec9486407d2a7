import { useSyncExternalStore } from 'react';
import type { Settings } from 'react-slick';

/** The width range each breakpoint covers, as react-slick defines it: above the next smaller one, up to its own. */
export function breakpointQueries(settings: Settings): { breakpoint: number; query: string }[] {
  const breakpoints = (settings.responsive ?? []).map((rule) => rule.breakpoint).sort((a, b) => a - b);
  return breakpoints.map((breakpoint, index) => ({
    breakpoint,
    query:
      index === 0
        ? `(max-width: ${breakpoint}px)`
        : `(min-width: ${breakpoints[index - 1]! + 1}px) and (max-width: ${breakpoint}px)`,
  }));
}

/** The settings for the current width: the base settings with the matching breakpoint's applied. */
export function settingsForBreakpoint(settings: Settings, breakpoint: number | null): Settings {
  const { responsive, ...base } = settings;
  const rule = responsive?.find((candidate) => candidate.breakpoint === breakpoint);
  return rule && typeof rule.settings === 'object' ? { ...base, ...rule.settings } : base;
}

/**
 * react-slick 0.31 applies `responsive` only when a media query changes, never at first render,
 * so a phone would get the desktop layout. This resolves the breakpoint up front and on resize.
 * The prerendered HTML cannot know the width: it is laid out for the smallest screens, where a late
 * re-layout would cost the most, and wider screens adjust once the page's scripts run.
 */
export function useResponsiveSettings(settings: Settings): {
  settings: Settings;
  breakpoint: number | null;
  serverBreakpoint: number | null;
} {
  const queries = breakpointQueries(settings);
  const serverBreakpoint = queries[0]?.breakpoint ?? null;
  const breakpoint = useSyncExternalStore(
    (onChange) => {
      const lists = queries.map(({ query }) => window.matchMedia(query));
      for (const list of lists) list.addEventListener('change', onChange);
      return () => lists.forEach((list) => list.removeEventListener('change', onChange));
    },
    () => queries.find(({ query }) => window.matchMedia(query).matches)?.breakpoint ?? null,
    () => serverBreakpoint,
  );
  return { settings: settingsForBreakpoint(settings, breakpoint), breakpoint, serverBreakpoint };
}

import { readdirSync } from 'node:fs';
import type { Settings } from 'react-slick';
import { breakpointQueries, settingsForBreakpoint } from './responsive-settings.ts';

/**
 * The carousel laid out by CSS alone, for every width, from the markup the server renders for the smallest screens.
 *
 * react-slick renders a track of slides (clones of the last ones, the slides, clones of the first ones) and places
 * it with numbers it measures once the page's scripts run. The server cannot measure, so it renders the phone's
 * layout; this writes what react-slick will do at every other breakpoint as media queries over the carousel's own
 * width (100cqw), so that the first paint, and a page without scripts, already shows it:
 * - a slide is as wide as react-slick makes it: the list's width less both paddings, over slidesToShow, rounded up;
 * - the slide it starts on (initialSlide) sits in the middle, with the slides that follow it on either side, taken
 *   from the server's track (moved to their places where the phone's track has them elsewhere).
 * Once react-slick has laid out the track for the width (`data-laid-out`), one correction stays: with a fractional
 * slidesToShow react-slick does not centre the current slide (it offsets by whole slides), so the track is moved by
 * what it misses, and the slides on the left mirror those on the right.
 *
 * Everything that moves between the two is a translation (`translate`, which adds to react-slick's `transform`), never
 * a box's place in the layout: when react-slick takes over, the same elements stay where they are drawn, and the
 * browser sees no layout shift (it counts a box whose layout place changed even when a transform hides it).
 */

/** The centre padding in pixels (react-slick reads it with parseInt, as here). */
const paddingOf = (settings: Settings) =>
  settings.centerMode ? parseInt(String(settings.centerPadding ?? '50px')) : 0;

/** The slides of react-slick's track for these settings, each by its `data-index` (clones below 0 and from count). */
export function trackIndexes(slidesToShow: number, slideCount: number): number[] {
  // react-slick's getPreClones/getPostClones (slidesToShow + 1 in centre mode) and the track's clone rules.
  const clones = slidesToShow + 1;
  const before = Math.min(slideCount, Math.floor(clones));
  const after = Math.min(slideCount, Math.ceil(clones));
  return Array.from({ length: before + slideCount + after }, (_, position) => position - before);
}

/** Which slide a track index shows (a clone shows the slide it was made from). */
export const contentOf = (index: number, slideCount: number) => ((index % slideCount) + slideCount) % slideCount;

/**
 * The server's track arranged around `current`: the same slide on either side as react-slick shows, as far as the
 * track has one for both sides. Returns the track's indexes from left to right, and where `current` is in it.
 */
export function arrangeAround(track: number[], current: number, slideCount: number) {
  const unused = new Set(track);
  const take = (content: number, near: number) => {
    const candidates = [...unused].filter((index) => contentOf(index, slideCount) === content);
    const best = candidates.sort((a, b) => Math.abs(a - near) - Math.abs(b - near))[0];
    if (best !== undefined) unused.delete(best);
    return best;
  };
  take(current, current);
  const left: number[] = [];
  const right: number[] = [];
  for (let step = 1; ; step++) {
    const onLeft = take(contentOf(current - step, slideCount), current - step);
    const onRight = take(contentOf(current + step, slideCount), current + step);
    if (onLeft === undefined || onRight === undefined) break;
    left.unshift(onLeft);
    right.push(onRight);
  }
  return { order: [...left, current, ...right], position: left.length };
}

/** A number as CSS writes it (1.7, not 1.7000000000000002). */
const css = (value: number) => String(Number(value.toFixed(4)));

/** One breakpoint's layout, in slide widths: what carouselLayoutCss writes for it. */
export interface BreakpointLayout {
  /** react-slick's breakpoint of the range (null above the largest), and its media query. */
  breakpoint: number | null;
  query: string;
  /** The slide it starts on. */
  current: number;
  slidesToShow: number;
  /** The centre padding, in pixels. */
  padding: number;
  /** Before react-slick: where the current slide is in the server's track, and the slides moved (by slides). */
  before: number;
  moves: { index: number; by: number }[];
  /** How many slides the server's track shows on either side of the current one. */
  reach: number;
  /** After: where react-slick puts the current slide, in slides from the track's start (its getTrackLeft). */
  offset: number;
}

/** Every breakpoint but the server's (which react-slick's own markup lays out), widest last. */
export function breakpointLayouts(settings: Settings, slideCount: number): BreakpointLayout[] {
  const queries = breakpointQueries(settings);
  const server = settingsForBreakpoint(settings, queries[0]?.breakpoint ?? null);
  const serverTrack = trackIndexes(server.slidesToShow ?? 1, slideCount);
  const largest = queries.at(-1)?.breakpoint;
  const ranges = [
    ...queries.slice(1),
    ...(largest === undefined ? [] : [{ breakpoint: null, query: `(min-width: ${largest + 1}px)` }]),
  ];
  return ranges.map(({ breakpoint, query }) => {
    const at = settingsForBreakpoint(settings, breakpoint);
    const slidesToShow = at.slidesToShow ?? 1;
    const current = at.initialSlide ?? 0;
    // The slides on either side of the current one, taken from the server's track; one it has elsewhere is moved to
    // its place, relatively: a slide's place never depends on one the browser has not parsed yet, so a page drawn
    // half-received has its slides where they stay.
    const { order, position } = arrangeAround(serverTrack, current, slideCount);
    const before = serverTrack.indexOf(current);
    const moves = order
      .map((index, at) => ({ index, by: before + at - position - serverTrack.indexOf(index) }))
      .filter(({ by }) => by !== 0);
    const clonesBefore = trackIndexes(slidesToShow, slideCount).indexOf(0);
    const offset = clonesBefore - (slidesToShow + 1) + Math.trunc(slidesToShow / 2);
    return { breakpoint, query, current, slidesToShow, padding: paddingOf(at), before, moves, reach: position, offset };
  });
}

/** The CSS that lays out a carousel with these settings and `slideCount` slides, scoped to `scope` (a selector). */
export function carouselLayoutCss(settings: Settings, slideCount: number, scope: string): string {
  return breakpointLayouts(settings, slideCount)
    .map(({ query, slidesToShow, padding, before, moves, offset }) => {
      const centred = `(100cqw - var(--slide-width)) / 2 - ${padding}px`;
      const early = `${scope}:not([data-laid-out])`;
      return [
        `@media ${query} {`,
        `${scope} { --slide-width: round(up, calc((100cqw - ${2 * padding}px) / ${css(slidesToShow)}), 1px); }`,
        `${early} .slick-list { padding: 0 ${padding}px !important; }`,
        `${early} .slick-slide { width: var(--slide-width) !important; }`,
        `${early} .slick-track { left: 0 !important; translate: calc(${centred} - ${before} * var(--slide-width)); }`,
        ...moves.map(
          ({ index, by }) =>
            `${early} .slick-slide[data-index="${index}"] { translate: calc(${by} * var(--slide-width)); }`,
        ),
        `${scope}[data-laid-out] .slick-track { translate: calc(${centred} - ${css(offset)} * var(--slide-width)); }`,
        `}`,
      ].join('\n');
    })
    .join('\n');
}

/** How many screens the hero's carousel shows: one per picture in src/assets/slides. */
export const heroSlideCount = () =>
  readdirSync(new URL('../assets/slides', import.meta.url)).filter((name) => name.endsWith('.svg')).length;

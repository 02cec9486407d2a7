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

const contentOf = (index: number, slideCount: number) => ((index % slideCount) + slideCount) % slideCount;

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

/** The CSS that lays out a carousel with these settings and `slideCount` slides, scoped to `scope` (a selector). */
export function carouselLayoutCss(settings: Settings, slideCount: number, scope: string): string {
  const queries = breakpointQueries(settings);
  const server = settingsForBreakpoint(settings, queries[0]?.breakpoint ?? null);
  const serverTrack = trackIndexes(server.slidesToShow ?? 1, slideCount);
  const largest = queries.at(-1)?.breakpoint;
  const ranges = [
    ...queries.slice(1),
    ...(largest === undefined ? [] : [{ breakpoint: null, query: `(min-width: ${largest + 1}px)` }]),
  ];
  const rules = ranges.map(({ breakpoint, query }) => {
    const at = settingsForBreakpoint(settings, breakpoint);
    const slidesToShow = at.slidesToShow ?? 1;
    const padding = paddingOf(at);
    const current = at.initialSlide ?? 0;
    const slide = `round(up, calc((100cqw - ${2 * padding}px) / ${css(slidesToShow)}), 1px)`;
    const centred = `(100cqw - var(--slide-width)) / 2`;

    // Before react-slick: the server's track, its slides as wide as they will be, the current one in the middle, and
    // a slide the phone's track has elsewhere moved to its place (relatively: a slide's place never depends on one
    // the browser has not parsed yet, so a page drawn half-received has its slides where they stay).
    const { order, position } = arrangeAround(serverTrack, current, slideCount);
    const before = serverTrack.indexOf(current);
    const moves = order.flatMap((index, at) => {
      const by = before + at - position - serverTrack.indexOf(index);
      return by === 0
        ? []
        : [
            `${scope}:not([data-laid-out]) .slick-slide[data-index="${index}"] { translate: calc(${by} * var(--slide-width)); }`,
          ];
    });

    // After: where react-slick puts the current slide (its getTrackLeft: whole slides from the clones before it).
    const clonesBefore = trackIndexes(slidesToShow, slideCount).indexOf(0);
    const offset = clonesBefore - (slidesToShow + 1) + Math.trunc(slidesToShow / 2);

    return [
      `@media ${query} {`,
      `${scope} { --slide-width: ${slide}; }`,
      `${scope}:not([data-laid-out]) .slick-list { padding: 0 ${padding}px !important; }`,
      `${scope}:not([data-laid-out]) .slick-slide { width: var(--slide-width) !important; }`,
      `${scope}:not([data-laid-out]) .slick-track { left: 0 !important; translate: calc(${centred} - ${padding}px - ${css(before)} * var(--slide-width)); }`,
      ...moves,
      `${scope}[data-laid-out] .slick-track { translate: calc(${centred} - ${padding}px - ${css(offset)} * var(--slide-width)); }`,
      `}`,
    ].join('\n');
  });
  return rules.join('\n');
}

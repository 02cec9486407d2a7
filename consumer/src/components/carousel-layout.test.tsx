// @vitest-environment node
import { renderToString } from 'react-dom/server';
import Slider from 'react-slick';
import { getTrackLeft } from 'react-slick/lib/utils/innerSliderUtils';
import { describe, expect, it } from 'vitest';
import { landing } from '../content/landing.content.ts';
import { breakpointLayouts, contentOf, heroSlideCount, trackIndexes } from './carousel-layout.ts';
import { imageCarouselSettings } from './carousel-settings.ts';
import { breakpointQueries, settingsForBreakpoint } from './responsive-settings.ts';

const slideCount = landing.imageSlides.length;
const showing = (index: number) => contentOf(index, slideCount);
/** The width the carousel has at a screen's width: the hero's 16 px on either side. */
const carouselWidth = (screen: number) => screen - 32;

describe('the carousel laid out before react-slick', () => {
  it('knows the track react-slick renders at every breakpoint', () => {
    for (const { breakpoint } of [...breakpointQueries(imageCarouselSettings), { breakpoint: null }]) {
      const settings = settingsForBreakpoint(imageCarouselSettings, breakpoint);
      const html = renderToString(
        <Slider {...settings}>
          {landing.imageSlides.map((slide) => (
            <div key={slide.id} />
          ))}
        </Slider>,
      );
      const rendered = [...html.matchAll(/data-index="(-?\d+)"/g)].map((match) => Number(match[1]));
      expect(rendered, `at breakpoint ${breakpoint}`).toEqual(trackIndexes(settings.slidesToShow ?? 1, slideCount));
    }
  });

  it('shows around the starting slide the slides react-slick shows, as far as the widest screen of each range sees', () => {
    const server = trackIndexes(1, slideCount);
    const ranges = breakpointLayouts(imageCarouselSettings, slideCount);
    // Each range's narrowest screen: one pixel above the breakpoint below it (the server's, for the first).
    const smallest = breakpointQueries(imageCarouselSettings).map(({ breakpoint }) => breakpoint + 1);
    expect(ranges).toHaveLength(smallest.length);
    ranges.forEach((layout, range) => {
      // Where each of the server's slides ends up, in slides from the start of its track.
      const slots = new Map(server.map((index, slot) => [slot, index]));
      for (const { index, by } of layout.moves) {
        const from = server.indexOf(index);
        if (slots.get(from) === index) slots.delete(from);
        slots.set(from + by, index);
      }
      for (let step = -layout.reach; step <= layout.reach; step++) {
        expect(showing(slots.get(layout.before + step)!), `${layout.query}, ${step} from the middle`).toBe(
          showing(layout.current + step),
        );
      }
      // The narrowest screen of the range sees the most slides on either side of the middle one.
      const list = carouselWidth(smallest[range]!);
      const slide = Math.ceil((list - 2 * layout.padding) / layout.slidesToShow);
      expect(layout.reach, layout.query).toBeGreaterThanOrEqual(Math.ceil((list - slide) / 2 / slide));
    });
  });

  it('centres the current slide once react-slick has placed the track, at any width', () => {
    const widths = [
      [481, 560, 600],
      [601, 768, 1024],
      [1025, 1280, 1350, 1920],
    ];
    breakpointLayouts(imageCarouselSettings, slideCount).forEach((layout, range) => {
      const settings = settingsForBreakpoint(imageCarouselSettings, layout.breakpoint);
      for (const screen of widths[range]!) {
        const listWidth = carouselWidth(screen);
        const slideWidth = Math.ceil((listWidth - 2 * layout.padding) / layout.slidesToShow);
        const slideIndex = layout.current;
        const trackLeft = getTrackLeft({
          ...settings,
          slideIndex,
          slideCount,
          slideWidth,
          listWidth,
          trackRef: null,
          variableWidth: false,
          slideHeight: 0,
        });
        const track = trackIndexes(layout.slidesToShow, slideCount);
        const correction = (listWidth - slideWidth) / 2 - layout.padding - layout.offset * slideWidth;
        const left = layout.padding + trackLeft + track.indexOf(slideIndex) * slideWidth + correction;
        expect(left + slideWidth / 2, `${screen} px`).toBeCloseTo(listWidth / 2, 6);
      }
    });
  });

  it('counts the hero’s screens as the landing page shows them', () => {
    expect(heroSlideCount()).toBe(slideCount);
  });
});

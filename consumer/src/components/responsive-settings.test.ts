import { describe, expect, it } from 'vitest';
import { imageCarouselSettings } from './carousel-settings.ts';
import { breakpointQueries, settingsForBreakpoint } from './responsive-settings.ts';

describe('responsive carousel settings', () => {
  it('turns breakpoints into the width ranges react-slick uses', () => {
    expect(breakpointQueries(imageCarouselSettings)).toEqual([
      { breakpoint: 480, query: '(max-width: 480px)' },
      { breakpoint: 600, query: '(min-width: 481px) and (max-width: 600px)' },
      { breakpoint: 1024, query: '(min-width: 601px) and (max-width: 1024px)' },
    ]);
  });

  it('applies a phone’s rule over the base settings and keeps the base above every breakpoint', () => {
    const phone = settingsForBreakpoint(imageCarouselSettings, 480);
    expect(phone).toMatchObject({ slidesToShow: 1, centerPadding: '63px', initialSlide: 0, centerMode: true });
    expect(phone.responsive).toBeUndefined();
    expect(settingsForBreakpoint(imageCarouselSettings, 600)).toMatchObject({ slidesToShow: 5.5, initialSlide: 2 });
    expect(settingsForBreakpoint(imageCarouselSettings, null)).toMatchObject({
      slidesToShow: 4.3,
      centerPadding: '60px',
    });
  });
});

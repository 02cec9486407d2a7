import { describe, expect, it } from 'vitest';
import { imageCarouselSettings, titleCarouselSettings } from './carousel-settings.ts';

describe('carousel settings (spec section 9)', () => {
  it('makes the title carousel vertical, one at a time, endless, bare and self-playing every 3 s', () => {
    expect(titleCarouselSettings).toEqual({
      vertical: true,
      verticalSwiping: true,
      slidesToShow: 1,
      slidesToScroll: 1,
      infinite: true,
      dots: false,
      arrows: false,
      autoplay: true,
      autoplaySpeed: 3000,
      speed: 500,
      pauseOnHover: false,
      swipeToSlide: true,
      touchThreshold: 5,
    });
  });

  it('centres the image carousel with 4.3 slides, 60 px padding, 500 ms slides, no pause on hover', () => {
    expect(imageCarouselSettings).toMatchObject({
      centerMode: true,
      infinite: true,
      centerPadding: '60px',
      slidesToShow: 4.3,
      speed: 500,
      autoplay: true,
      autoplaySpeed: 3000,
      pauseOnHover: false,
      touchThreshold: 5,
    });
  });

  it('applies the spec’s responsive rules at 1024, 600 and 480 px', () => {
    expect(imageCarouselSettings.responsive).toEqual([
      { breakpoint: 1024, settings: { slidesToShow: 5.2, slidesToScroll: 1, dots: false } },
      { breakpoint: 600, settings: { slidesToShow: 5.5, slidesToScroll: 1, initialSlide: 2 } },
      { breakpoint: 480, settings: { slidesToShow: 1, slidesToScroll: 1, initialSlide: 0, centerPadding: '63px' } },
    ]);
  });
});

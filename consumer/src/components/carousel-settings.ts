import type { Settings } from 'react-slick';

/** Spec section 9: the centred image carousel and its responsive rules. */
export const imageCarouselSettings = {
  centerMode: true,
  infinite: true,
  centerPadding: '60px',
  slidesToShow: 4.3,
  slidesToScroll: 1,
  dots: false,
  arrows: false,
  speed: 500,
  autoplay: true,
  autoplaySpeed: 3000,
  pauseOnHover: false,
  touchThreshold: 5,
  responsive: [
    { breakpoint: 1024, settings: { slidesToShow: 5.2, slidesToScroll: 1, dots: false } },
    { breakpoint: 600, settings: { slidesToShow: 5.5, slidesToScroll: 1, initialSlide: 2 } },
    { breakpoint: 480, settings: { slidesToShow: 1, slidesToScroll: 1, initialSlide: 0, centerPadding: '63px' } },
  ],
} satisfies Settings;

/** The hero's carousel, as its every-width layout (carousel-layout.ts) names it. */
export const heroCarouselLayout = 'app-screens';

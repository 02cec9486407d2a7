import { site } from '@gift/content';
import { StoreButtons } from '@gift/ui';
import { landing } from '../content/landing.content.ts';
import { AutoCarousel, useAutoplay } from './auto-carousel.tsx';
import { imageCarouselSettings } from './carousel-settings.ts';
import styles from './hero.module.css';
import { RotatingText } from './rotating-text.tsx';

/**
 * The hero: a title whose second line changes, the app stores, and screens of the app going by. One control pauses
 * both moving parts, after them, where a visitor who wants them still looks.
 */
export function Hero() {
  const { hero, imageSlides, imageAlt } = landing;
  const { playing, control } = useAutoplay('taglines and app screens');
  return (
    <section className={styles.hero} aria-labelledby="hero-title">
      <div className={styles.inner}>
        <h1 id="hero-title" className={styles.title}>
          {hero.title}
          <span className="visually-hidden">: {hero.titleSlides.map((slide) => slide.title).join(', ')}</span>
        </h1>
        <RotatingText label="taglines" phrases={hero.titleSlides} playing={playing} className={styles.titleCarousel} />
        <p className={styles.intro}>{hero.intro}</p>
        <div className={styles.stores}>
          <StoreButtons links={site.consumerApp} centered />
        </div>
      </div>
      <AutoCarousel label="app screens" settings={imageCarouselSettings} playing={playing} className={styles.gallery}>
        {imageSlides.map((slide, index) => (
          <div key={slide.id} className={styles.slide}>
            <img
              src={slide.src}
              alt={imageAlt}
              width={slide.width}
              height={slide.height}
              loading="eager"
              // The first slide is the page's largest paint on a phone: fetched before the scripts, and painted
              // in the same frame as the text around it rather than in a later one.
              decoding={index === 0 ? 'sync' : 'async'}
              fetchPriority={index === 0 ? 'high' : undefined}
            />
          </div>
        ))}
      </AutoCarousel>
      {control(styles.galleryControl)}
    </section>
  );
}

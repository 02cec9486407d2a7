import { site } from '@gift/content';
import { StoreButtons, useHydrated } from '@gift/ui';
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
  const hydrated = useHydrated();
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
        {imageSlides.map((slide, index) => {
          const image = (
            <img
              src={slide.src}
              alt={imageAlt}
              width={slide.width}
              height={slide.height}
              // The first slide is the page's largest paint on a phone: fetched with the scripts, and painted in the
              // same frame as the text around it rather than in a later one.
              decoding={index === 0 ? 'sync' : 'async'}
              fetchPriority={index === 0 ? 'high' : undefined}
            />
          );
          return (
            <div key={slide.id} className={styles.slide}>
              {/* The others come once the page is interactive (a slow phone's line carries the scripts first; lazy
                  loading would fetch them as soon as the page is laid out), or, without scripts, with the page. */}
              {index === 0 || hydrated ? image : <noscript>{image}</noscript>}
            </div>
          );
        })}
      </AutoCarousel>
      {control(styles.galleryControl)}
    </section>
  );
}

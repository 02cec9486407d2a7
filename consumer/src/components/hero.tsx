import { site } from '@gift/content';
import { StoreButtons } from '@gift/ui';
import { landing } from '../content/landing.content.ts';
import { AutoCarousel } from './auto-carousel.tsx';
import { imageCarouselSettings, titleCarouselSettings } from './carousel-settings.ts';
import styles from './hero.module.css';

export function Hero() {
  const { hero, imageSlides, imageAlt } = landing;
  return (
    <section className={styles.hero} aria-labelledby="hero-title">
      <div className={styles.inner}>
        <h1 id="hero-title" className={styles.title}>
          {hero.title}
          <span className="visually-hidden">: {hero.titleSlides.map((slide) => slide.title).join(', ')}</span>
        </h1>
        <AutoCarousel
          label="taglines"
          settings={titleCarouselSettings}
          className={styles.titleCarousel}
          controlClassName={styles.titleControl}
        >
          {hero.titleSlides.map((slide) => (
            <p key={slide.id} className={styles.slideTitle}>
              {slide.title}
            </p>
          ))}
        </AutoCarousel>
        <p className={styles.intro}>{hero.intro}</p>
        <div className={styles.stores}>
          <StoreButtons links={site.consumerApp} centered />
        </div>
      </div>
      <AutoCarousel
        label="app screens"
        settings={imageCarouselSettings}
        className={styles.gallery}
        controlClassName={styles.galleryControl}
      >
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
    </section>
  );
}

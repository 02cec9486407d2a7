import { site } from '@gift/content';
import { ArtCard, ArtPill, ArtRow, Icon, ProductArt, StoreButtons, useHydrated } from '@gift/ui';
import { useDeferredValue, useMemo } from 'react';
import { preload } from 'react-dom';
import { landing } from '../content/landing.content.ts';
import { AutoCarousel, useAutoplay } from './auto-carousel.tsx';
import { heroCarouselLayout, imageCarouselSettings } from './carousel-settings.ts';
// Its layout at every width, before react-slick's: CSS written from its settings when the remote is built.
import 'virtual:carousel-layout.css';
import styles from './hero.module.css';
import { breakpointQueries } from './responsive-settings.ts';
import { RotatingText } from './rotating-text.tsx';

/**
 * Where the server's layout is the phone's and the page will run scripts: there only the first slide is whole, and
 * the slivers of its neighbours wait for the page to be interactive (their bytes would be on a slow line before the
 * scripts'). A transparent pixel stands in; without scripts they come with the page.
 */
const phoneBeforeScripts = `${breakpointQueries(imageCarouselSettings)[0]!.query} and (scripting: enabled)`;
const nothing = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

/** The slides a breakpoint starts on, in the middle of the screen. */
const startSlides = new Set(
  [imageCarouselSettings, ...imageCarouselSettings.responsive.map((rule) => rule.settings)].map((settings) =>
    'initialSlide' in settings ? settings.initialSlide : 0,
  ),
);

/**
 * The screens of the app going by. A component of its own: the render that hydration causes (its stand-ins going)
 * is this one's alone, not the whole hero's.
 */
function Gallery({ playing }: { playing: boolean }) {
  const { imageSlides, imageAlt } = landing;
  // Once hydrated the slivers' stand-ins go, in a render of their own that yields to input: not in the commit of
  // hydration, where the carousel's first layout already is (issue 60).
  const hydrated = useDeferredValue(useHydrated());
  const slides = useMemo(
    () =>
      imageSlides.map((slide, index) => {
        const first = index === 0;
        const startsOn = startSlides.has(index);
        return (
          <div key={slide.id} className={styles.slide}>
            <picture>
              {!first && !hydrated && <source media={phoneBeforeScripts} srcSet={nothing} />}
              <img
                src={slide.src}
                alt={imageAlt}
                width={slide.width}
                height={slide.height}
                // The first slide is the page's largest paint: fetched first, and painted in the same frame as the
                // text around it rather than in a later one. The one a screen starts on, at once too (where it is
                // not the phone's); the others as they come into view: on a wider screen, those beside it at once.
                loading={startsOn ? undefined : 'lazy'}
                decoding={first ? 'sync' : 'async'}
                fetchPriority={first ? 'high' : undefined}
              />
            </picture>
          </div>
        );
      }),
    [imageSlides, imageAlt, hydrated],
  );
  return (
    <AutoCarousel
      label="app screens"
      settings={imageCarouselSettings}
      playing={playing}
      className={styles.gallery}
      layout={heroCarouselLayout}
    >
      {slides}
    </AutoCarousel>
  );
}

/**
 * The hero: a title whose second line changes, the app stores, and screens of the app going by. One control pauses
 * both moving parts, after them, where a visitor who wants them still looks.
 */
export function Hero() {
  const { hero, imageSlides } = landing;
  // The page's largest paint, asked for from the document's first bytes (the server puts this in its head): painted
  // with the text around it, not after it, on a fast line too.
  preload(imageSlides[0]!.src, { as: 'image', fetchPriority: 'high' });
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
      <div className={styles.stage}>
        <Gallery playing={playing} />
        <ProductArt label={hero.onItsWay.alt} plain className={styles.onItsWay}>
          <ArtCard title={hero.onItsWay.title} meta={hero.onItsWay.when}>
            <ArtRow badge={<Icon name="send" size={18} />} name={hero.onItsWay.item} detail={hero.onItsWay.detail} />
            <ArtPill tone="teal">{hero.onItsWay.status}</ArtPill>
          </ArtCard>
        </ProductArt>
      </div>
      {control(styles.galleryControl)}
    </section>
  );
}

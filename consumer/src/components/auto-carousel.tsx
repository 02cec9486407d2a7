import { memo, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import Slider, { type Settings } from 'react-slick';
import { usePrefersReducedMotion } from '@gift/ui';
import styles from './auto-carousel.module.css';
import { useResponsiveSettings } from './responsive-settings.ts';

/** Whether the pause checkbox the server rendered was pressed before the page's scripts ran. */
function pressedBeforeHydration(checkboxId: string): true | null {
  if (typeof document === 'undefined') return null;
  return (document.getElementById(checkboxId) as HTMLInputElement | null)?.checked ? true : null;
}

/**
 * Whether the carousels of one place move, with the pause control WCAG 2.2.2 asks for: one native checkbox
 * ("Pause <what>") for all of them, so that a press before the page's scripts arrive is kept by the browser and
 * they start paused. They start paused too when the visitor prefers reduced motion, until they choose.
 */
export function useAutoplay(what: string) {
  const reducedMotion = usePrefersReducedMotion();
  const id = `${useId()}-pause`;
  // The visitor's own choice, once they have made one (pressed before hydration: the checkbox was checked);
  // until then reduced motion decides. Read as React first renders, so the sliders mount as they will stay.
  const [choice, setChoice] = useState<boolean | null>(() => pressedBeforeHydration(id));
  const playing = !(choice ?? reducedMotion);
  const control = (className?: string) => (
    <label className={[styles.control, className].filter(Boolean).join(' ')}>
      <input
        id={id}
        type="checkbox"
        className={styles.pause}
        checked={!playing}
        onChange={(event) => setChoice(event.target.checked)}
      />
      <span className={styles.icon} aria-hidden="true" />
      Pause<span className="visually-hidden"> {what}</span>
    </label>
  );
  return { playing, control };
}

interface AutoCarouselProps {
  label: string;
  settings: Settings;
  /** Whether it moves by itself: the `useAutoplay` of the place it is in decides. */
  playing: boolean;
  className?: string;
  /**
   * The name its every-width layout is written for (carousel-layout.ts, at build time): until react-slick has laid
   * it out, and without scripts, that CSS lays it out.
   */
  layout?: string;
  children: ReactNode;
}

/**
 * A react-slick carousel that moves by itself while `playing`. Memoised: the page around it re-renders as it hydrates,
 * and the slider (every slide and its clones) need not with it.
 */
export const AutoCarousel = memo(function AutoCarousel({
  label,
  settings,
  playing,
  className,
  layout,
  children,
}: AutoCarouselProps) {
  const responsive = useResponsiveSettings(settings);
  const slider = useRef<Slider>(null);

  // The autoplay prop alone cannot resume react-slick once paused; slickPlay can.
  useEffect(() => {
    if (playing) slider.current?.slickPlay();
  }, [playing, responsive.breakpoint]);

  // The server lays the slider out for the smallest screens; on a wider one react-slick lays it out again once this
  // renders with that screen's settings (as it mounts or updates, in the same task, before the browser paints), and
  // this mark comes with it: until then the layout is carousel-layout.ts's.
  const [laidOutFor, setLaidOutFor] = useState<number | null>();
  // Where the server laid it out for this screen there is nothing to mark, and no render to cause in the commit that
  // mounts it (issue 60).
  const laidOutNow = () => {
    if (responsive.breakpoint !== responsive.serverBreakpoint) setLaidOutFor(responsive.breakpoint);
  };
  const laidOut = laidOutFor === responsive.breakpoint && responsive.breakpoint !== responsive.serverBreakpoint;
  return (
    <div
      className={[styles.carousel, className].filter(Boolean).join(' ')}
      data-carousel-layout={layout}
      data-laid-out={laidOut ? '' : undefined}
      role="group"
      aria-roledescription="carousel"
      aria-label={label}
    >
      {/* The same slider at every width, so that the slides on screen stay the same elements (a screen whose images
          were replaced would paint them again, as a later largest paint); a slider per slide it starts on, as
          react-slick reads initialSlide only when it mounts. */}
      <Slider
        ref={slider}
        key={String(responsive.settings.initialSlide ?? 0)}
        {...responsive.settings}
        autoplay={playing}
        onInit={laidOutNow}
        onReInit={laidOutNow}
      >
        {children}
      </Slider>
    </div>
  );
});

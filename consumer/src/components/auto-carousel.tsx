import { useId, useState, type ReactNode } from 'react';
import type { Settings } from 'react-slick';
import { laterPart, usePrefersReducedMotion } from '@gift/ui';
import styles from './auto-carousel.module.css';

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
      <span aria-hidden="true">❚❚</span>
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
  children: ReactNode;
}

/**
 * react-slick, with its code loaded after the page has hydrated: a carousel has no control of its own (the pause
 * control is outside it), so until then the slide the server rendered shows, still.
 */
const SlickSlider = laterPart(() => import('./slick-slider.tsx'));

/** A react-slick carousel that moves by itself while `playing`. */
export function AutoCarousel({ label, settings, playing, className, children }: AutoCarouselProps) {
  return (
    <div
      className={[styles.carousel, className].filter(Boolean).join(' ')}
      role="group"
      aria-roledescription="carousel"
      aria-label={label}
    >
      <SlickSlider settings={settings} playing={playing}>
        {children}
      </SlickSlider>
    </div>
  );
}

import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import Slider, { type Settings } from 'react-slick';
import { usePrefersReducedMotion } from '@gift/ui';
import styles from './auto-carousel.module.css';
import { useResponsiveSettings } from './responsive-settings.ts';

/** Whether the pause checkbox the server rendered was pressed before the page's scripts ran. */
function pressedBeforeHydration(checkboxId: string): true | null {
  if (typeof document === 'undefined') return null;
  return (document.getElementById(checkboxId) as HTMLInputElement | null)?.checked ? true : null;
}

interface AutoCarouselProps {
  label: string;
  settings: Settings;
  className?: string;
  controlClassName?: string;
  children: ReactNode;
}

/**
 * A react-slick carousel that moves by itself, with the pause control WCAG 2.2.2 asks for. The control is a
 * native checkbox ("Pause <label>"), so a press before the page's scripts arrive is kept by the browser and the
 * carousel starts paused. It starts paused too when the visitor prefers reduced motion, until they choose.
 */
export function AutoCarousel({ label, settings, className, controlClassName, children }: AutoCarouselProps) {
  const reducedMotion = usePrefersReducedMotion();
  const id = useId();
  // The visitor's own choice, once they have made one (pressed before hydration: the checkbox was checked);
  // until then reduced motion decides. Read as React first renders, so the slider mounts as it will stay.
  const [choice, setChoice] = useState<boolean | null>(() => pressedBeforeHydration(`${id}-pause`));
  const playing = !(choice ?? reducedMotion);
  const responsive = useResponsiveSettings(settings);
  const slider = useRef<Slider>(null);

  // The autoplay prop alone cannot resume react-slick once paused; slickPlay can.
  useEffect(() => {
    if (playing) slider.current?.slickPlay();
  }, [playing, responsive.settings.initialSlide]);

  return (
    <div
      className={[styles.carousel, className].filter(Boolean).join(' ')}
      role="group"
      aria-roledescription="carousel"
      aria-label={label}
    >
      {/* react-slick reads initialSlide only when it mounts: a breakpoint with another one remounts it. */}
      <Slider ref={slider} key={responsive.settings.initialSlide ?? 0} {...responsive.settings} autoplay={playing}>
        {children}
      </Slider>
      <label className={[styles.control, controlClassName].filter(Boolean).join(' ')}>
        <input
          id={`${id}-pause`}
          type="checkbox"
          className={styles.pause}
          checked={!playing}
          onChange={(event) => setChoice(event.target.checked)}
        />
        <span aria-hidden="true">❚❚</span>
        Pause<span className="visually-hidden"> {label}</span>
      </label>
    </div>
  );
}

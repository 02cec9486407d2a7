import { useEffect, useRef, useState, type ReactNode } from 'react';
import Slider, { type Settings } from 'react-slick';
import { usePrefersReducedMotion } from '@gift/ui';
import styles from './auto-carousel.module.css';
import { useResponsiveSettings } from './responsive-settings.ts';

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
  const pause = useRef<HTMLInputElement>(null);
  // The visitor's own choice, once they have made one; until then reduced motion decides.
  const choice = useRef<boolean | null>(null);
  // Unknown until hydrated: nothing moves before the checkbox has been read.
  const [paused, setPaused] = useState<boolean | null>(null);
  const playing = paused === false;
  const responsive = useResponsiveSettings(settings);
  const slider = useRef<Slider>(null);

  // Checked before hydration: the visitor pressed pause while the page was loading.
  useEffect(() => {
    if (pause.current?.checked) choice.current = true;
  }, []);

  useEffect(() => {
    const box = pause.current;
    if (!box) return;
    box.checked = choice.current ?? reducedMotion;
    setPaused(box.checked);
  }, [reducedMotion]);

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
          ref={pause}
          type="checkbox"
          className={styles.pause}
          onChange={(event) => {
            choice.current = event.target.checked;
            setPaused(event.target.checked);
          }}
        />
        <span aria-hidden="true">❚❚</span>
        Pause<span className="visually-hidden"> {label}</span>
      </label>
    </div>
  );
}

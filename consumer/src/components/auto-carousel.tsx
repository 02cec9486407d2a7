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
 * A react-slick carousel that moves by itself, with the pause/play button WCAG 2.2.2 asks for.
 * It starts paused when the visitor prefers reduced motion.
 */
export function AutoCarousel({ label, settings, className, controlClassName, children }: AutoCarouselProps) {
  const reducedMotion = usePrefersReducedMotion();
  // Reduced motion decides until the visitor presses the button themselves.
  const [choice, setChoice] = useState<boolean | null>(null);
  const playing = choice ?? !reducedMotion;
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
      <button
        type="button"
        className={[styles.control, controlClassName].filter(Boolean).join(' ')}
        aria-label={playing ? `Pause ${label}` : `Play ${label}`}
        onClick={() => setChoice(!playing)}
      >
        <span aria-hidden="true">{playing ? '❚❚' : '▶'}</span>
        {playing ? 'Pause' : 'Play'}
      </button>
    </div>
  );
}

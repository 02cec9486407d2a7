import { useEffect, useRef, type ReactNode } from 'react';
import Slider, { type Settings } from 'react-slick';
import { useResponsiveSettings } from './responsive-settings.ts';

interface SlickSliderProps {
  settings: Settings;
  playing: boolean;
  children: ReactNode;
}

/** The slides of an AutoCarousel in react-slick, moving by themselves while `playing`. */
export default function SlickSlider({ settings, playing, children }: SlickSliderProps) {
  const responsive = useResponsiveSettings(settings);
  const slider = useRef<Slider>(null);

  // The autoplay prop alone cannot resume react-slick once paused; slickPlay can.
  useEffect(() => {
    if (playing) slider.current?.slickPlay();
  }, [playing, responsive.settings.initialSlide]);

  // react-slick reads initialSlide only when it mounts: a breakpoint with another one remounts it.
  return (
    <Slider ref={slider} key={responsive.settings.initialSlide ?? 0} {...responsive.settings} autoplay={playing}>
      {children}
    </Slider>
  );
}

import { useEffect, useState } from 'react';
import styles from './rotating-text.module.css';

interface RotatingTextProps {
  /** What the phrases are, for assistive technology ("taglines"). */
  label: string;
  phrases: readonly { id: string; title: string }[];
  /** Whether it moves on by itself: the place it is in decides (`useAutoplay`). */
  playing: boolean;
  intervalMs?: number;
  className?: string;
}

/**
 * Phrases that follow one another in one place, each fading into the next. They share one grid cell, so the box is
 * as tall as the tallest phrase and nothing below moves when a longer one wraps; the server renders the first one
 * shown, so the first paint (and a page without scripts) reads whole.
 */
export function RotatingText({ label, phrases, playing, intervalMs = 3000, className }: RotatingTextProps) {
  const [current, setCurrent] = useState(0);
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => setCurrent((index) => (index + 1) % phrases.length), intervalMs);
    return () => clearInterval(timer);
  }, [playing, intervalMs, phrases.length]);
  return (
    <div
      className={[styles.rotating, className].filter(Boolean).join(' ')}
      role="group"
      aria-roledescription="carousel"
      aria-label={label}
    >
      {phrases.map((phrase, index) => (
        <p
          key={phrase.id}
          className={styles.phrase}
          data-index={index}
          data-current={index === current}
          aria-hidden={index !== current}
        >
          {phrase.title}
        </p>
      ))}
    </div>
  );
}

import { LazyMotion, MotionConfig } from 'framer-motion';
import type { ReactNode } from 'react';

/** Spec section 9: the default layout transition; reduced motion turns movement off. */
export const defaultTransition = { layout: { duration: 0.45 } };

/** Elements that animate: until the animation code is there they show their initial state. */
const animatedSelector = '[data-reveal], [data-motion]';
const interactions = ['scroll', 'wheel', 'keydown', 'pointerdown', 'touchstart'] as const;

/**
 * Resolves when something on the page could move: the visitor scrolls, presses a key or touches the page, or an
 * animated element is already near the viewport. Nothing moves before either, so nothing needs to be loaded.
 */
export function whenMotionNeeded(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const type of interactions) window.removeEventListener(type, done, true);
      observer?.disconnect();
      resolve();
    };
    for (const type of interactions) window.addEventListener(type, done, { capture: true, passive: true });
    const observer =
      'IntersectionObserver' in window
        ? new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && done(), {
            rootMargin: '25% 0px',
          })
        : undefined;
    if (!observer) return done();
    document.querySelectorAll(animatedSelector).forEach((element) => observer.observe(element));
  });
}

// If the chunk cannot load, the page shows its animated content as it would without JavaScript, and stays put.
const loadFeatures = () =>
  whenMotionNeeded()
    .then(() => import('./motion-features.ts'))
    .then((module) => module.default)
    .catch(() => {
      document.documentElement.dataset.motion = 'unavailable';
      return new Promise<never>(() => {});
    });

/**
 * The landing page's animations: the animation code (a third of the page's JavaScript) loads only when
 * something could move, so it is not part of what the page needs before the visitor does anything.
 */
export function PageMotion({ children }: { children: ReactNode }) {
  return (
    <LazyMotion features={loadFeatures} strict>
      <MotionConfig reducedMotion="user" transition={defaultTransition}>
        {children}
      </MotionConfig>
    </LazyMotion>
  );
}

import {
  createContext,
  startTransition,
  use,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type ReactNode,
} from 'react';

import type * as AnimatedPartsModule from './animated-parts.tsx';

type AnimatedParts = typeof AnimatedPartsModule;

export interface RevealProps {
  className?: string;
  children: ReactNode;
}

export interface PanelProps {
  id: string;
  className?: string;
  /** Changes when the content does: the old content fades out and the new one in. */
  contentKey: string;
  children: ReactNode;
}

/** Elements that animate: until the animation code is there they show their first state. */
const animatedSelector = '[data-reveal], [data-motion]';
const inputs = ['wheel', 'keydown', 'pointerdown', 'touchstart'] as const;

/**
 * Resolves when something on the page could move: the visitor scrolls, presses a key or touches the page, or an
 * animated element is already near the viewport. Nothing moves before either, so nothing needs to be loaded.
 * Stops watching, and never resolves, once `signal` aborts (the page has gone).
 */
export function whenMotionNeeded(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      for (const type of inputs) window.removeEventListener(type, done, true);
      // Only the page's own scrolling: a carousel or a row of chips scrolling itself is not the visitor.
      window.removeEventListener('scroll', done);
      observer?.disconnect();
    };
    const done = () => {
      stop();
      resolve();
    };
    for (const type of inputs) window.addEventListener(type, done, { capture: true, passive: true });
    window.addEventListener('scroll', done, { passive: true });
    signal?.addEventListener('abort', stop, { once: true });
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

const AnimatedPartsContext = createContext<AnimatedParts | null>(null);

/**
 * The landing page's animations. framer-motion is a third of the page's JavaScript and nothing moves before the
 * visitor does something, so the page renders still parts first and swaps in animated ones when motion is needed.
 */
export function PageMotion({ children }: { children: ReactNode }) {
  const [parts, setParts] = useState<AnimatedParts | null>(null);
  useEffect(() => {
    const page = new AbortController();
    whenMotionNeeded(page.signal)
      .then(() => import('./animated-parts.tsx'))
      // Swapping in the animated parts re-renders the whole page: in a transition React does it in slices, so a
      // tap or a scroll in the meantime is answered at once instead of after one long task.
      .then((loaded) => page.signal.aborted || startTransition(() => setParts(loaded)))
      // The still parts stay, shown as they are.
      .catch(() => undefined);
    return () => page.abort();
  }, []);
  return <AnimatedPartsContext value={parts}>{children}</AnimatedPartsContext>;
}

/**
 * How far below its place revealed content starts, in pixels: it rises and fades in. Never sideways, which would
 * widen the page on a phone until the content came into view.
 */
export const revealRise = 24;

/**
 * Content that rises and fades in when it comes into view, once the animation code is there; shown as it is until
 * then (the server's page, a page whose scripts are late or off). Content already on the screen or passed when the
 * animation code arrives stays as it is: only what is still below the screen is hidden, to come in when it is
 * reached, so nothing a visitor has seen ever disappears.
 */
export function Reveal({ className, children }: RevealProps) {
  const parts = use(AnimatedPartsContext);
  const still = useRef<HTMLDivElement>(null);
  // Measured in the commit that brings the animation code, before the browser paints it.
  const [belowTheScreen, setBelowTheScreen] = useState<boolean>();
  useLayoutEffect(() => {
    if (parts && still.current) setBelowTheScreen(still.current.getBoundingClientRect().top > window.innerHeight);
  }, [parts]);
  if (parts && belowTheScreen !== undefined) {
    return <parts.AnimatedReveal rise={belowTheScreen ? revealRise : 0} {...{ className, children }} />;
  }
  return (
    <div ref={still} className={className} data-reveal>
      {children}
    </div>
  );
}

/** A block that resizes to fit its content, and fades between contents once motion is loaded. */
export function ResizingPanel({ id, className, contentKey, children }: PanelProps) {
  const parts = use(AnimatedPartsContext);
  if (parts) return <parts.AnimatedPanel {...{ id, className, contentKey, children }} />;
  return (
    <div id={id} className={className} data-motion>
      <div key={contentKey}>{children}</div>
    </div>
  );
}

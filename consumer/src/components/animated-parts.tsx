import { AnimatePresence, domMax, LayoutGroup, LazyMotion, m, MotionConfig } from 'framer-motion';
import type { ReactNode } from 'react';
import type { PanelProps, RevealProps } from './page-motion.tsx';

/** Spec section 9: the default layout transition, and the block that resizes to fit the chosen feature. */
export const defaultTransition = { layout: { duration: 0.45 } };
export const resizeBlockTransition = { duration: 0.25 };

/** framer-motion with every feature (the panel's resize is a layout animation); reduced motion turns movement off. */
function Motion({ children }: { children: ReactNode }) {
  return (
    <LazyMotion features={domMax} strict>
      <MotionConfig reducedMotion="user" transition={defaultTransition}>
        {children}
      </MotionConfig>
    </LazyMotion>
  );
}

/** Rises `rise` pixels and fades in as it comes into view; with no rise, it is shown as it is. */
export function AnimatedReveal({ rise, className, children }: RevealProps & { rise: number }) {
  return (
    <Motion>
      <m.div
        className={className}
        data-reveal
        initial={rise ? { opacity: 0, y: rise } : false}
        whileInView={{ opacity: 1, y: 0 }}
        viewport={{ once: true, amount: 0.3 }}
      >
        {children}
      </m.div>
    </Motion>
  );
}

/**
 * Resizes to fit its content, which fades out and in when it changes. The content changes inside AnimatePresence,
 * which re-renders without the panel; the LayoutGroup makes the panel measure itself again when it does.
 */
export function AnimatedPanel({ id, className, contentKey, children }: PanelProps) {
  return (
    <Motion>
      <LayoutGroup>
        <m.div id={id} className={className} data-motion layout transition={{ layout: resizeBlockTransition }}>
          <AnimatePresence mode="wait" initial={false}>
            <m.div
              key={contentKey}
              layout="position"
              initial={{ opacity: 0, y: 12 }}
              animate={{ opacity: 1, y: 0 }}
              exit={{ opacity: 0, y: -12 }}
              transition={{ duration: 0.2 }}
            >
              {children}
            </m.div>
          </AnimatePresence>
        </m.div>
      </LayoutGroup>
    </Motion>
  );
}

import { useEffect, useState, type RefObject } from 'react';

/**
 * Index of the element that crosses the middle of the viewport: drives scroll-driven highlighting
 * of steps and features. Starts at 0 and stays on the last one passed.
 */
export function useScrollSpy(refs: RefObject<(HTMLElement | null)[]>): number {
  const [active, setActive] = useState(0);
  useEffect(() => {
    const elements = (refs.current ?? []).filter((element): element is HTMLElement => element !== null);
    if (elements.length === 0 || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) setActive(elements.indexOf(entry.target as HTMLElement));
        }
      },
      { rootMargin: '-45% 0px -45% 0px' },
    );
    for (const element of elements) observer.observe(element);
    return () => observer.disconnect();
  }, [refs]);
  return active;
}

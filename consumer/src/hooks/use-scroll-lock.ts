import { useEffect, useState, type RefObject } from 'react';

/** Spec section 9: the middle section must be at least this visible for the lock to engage. */
export const lockVisibilityThreshold = 0.5;

export function shouldLockScroll({ visibleRatio, cardAtBottom }: { visibleRatio: number; cardAtBottom: boolean }) {
  return visibleRatio >= lockVisibilityThreshold && !cardAtBottom;
}

export function isScrolledToBottom(element: HTMLElement) {
  return element.scrollTop + element.clientHeight >= element.scrollHeight - 1;
}

const pageScrollKeys: Record<string, number> = {
  ArrowDown: 40,
  ArrowUp: -40,
  PageDown: 0.9,
  PageUp: -0.9,
  ' ': 0.9,
  End: Infinity,
  Home: -Infinity,
};

function lockPage() {
  const root = document.documentElement;
  const previous = { overflow: root.style.overflow, gutter: root.style.scrollbarGutter };
  root.style.scrollbarGutter = 'stable';
  root.style.overflow = 'hidden';
  return () => {
    root.style.overflow = previous.overflow;
    root.style.scrollbarGutter = previous.gutter;
  };
}

/**
 * Locks page scrolling while `section` is at least half visible and `card` has not been scrolled to its
 * bottom. While locked, wheel, touch and keyboard input aimed at the page scrolls the card instead.
 * The lock is always released on unmount, so navigating away never leaves the page stuck.
 */
export function useScrollLock(section: RefObject<HTMLElement | null>, card: RefObject<HTMLElement | null>) {
  const [visibleRatio, setVisibleRatio] = useState(0);
  const [cardAtBottom, setCardAtBottom] = useState(false);
  const locked = shouldLockScroll({ visibleRatio, cardAtBottom });

  useEffect(() => {
    const target = section.current;
    if (!target) return;
    const observer = new IntersectionObserver(([entry]) => setVisibleRatio(entry?.intersectionRatio ?? 0), {
      threshold: [0, 0.25, lockVisibilityThreshold, 0.75, 1],
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [section]);

  useEffect(() => {
    const element = card.current;
    if (!element) return;
    const onScroll = () => setCardAtBottom(isScrolledToBottom(element));
    onScroll();
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, [card]);

  useEffect(() => {
    const element = card.current;
    if (!locked || !element) return;
    const unlock = lockPage();
    const outsideCard = (event: Event) => !(event.target instanceof Node && element.contains(event.target));

    const onWheel = (event: WheelEvent) => {
      if (!outsideCard(event)) return;
      event.preventDefault();
      element.scrollBy({ top: event.deltaY });
    };
    let lastTouchY: number | undefined;
    const onTouchStart = (event: TouchEvent) => (lastTouchY = event.touches[0]?.clientY);
    const onTouchMove = (event: TouchEvent) => {
      const y = event.touches[0]?.clientY;
      if (!outsideCard(event) || y === undefined || lastTouchY === undefined) return;
      event.preventDefault();
      element.scrollBy({ top: lastTouchY - y });
      lastTouchY = y;
    };
    const onKeyDown = (event: KeyboardEvent) => {
      const step = pageScrollKeys[event.key];
      const typing =
        event.target instanceof HTMLElement &&
        event.target.closest('input, textarea, select, button, [contenteditable]');
      if (step === undefined || typing || !outsideCard(event) || event.altKey || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      const distance = Math.abs(step) < 1 ? step * element.clientHeight : step;
      element.scrollBy({ top: event.shiftKey && event.key === ' ' ? -distance : distance });
    };

    window.addEventListener('wheel', onWheel, { passive: false });
    window.addEventListener('touchstart', onTouchStart, { passive: true });
    window.addEventListener('touchmove', onTouchMove, { passive: false });
    window.addEventListener('keydown', onKeyDown);
    return () => {
      unlock();
      window.removeEventListener('wheel', onWheel);
      window.removeEventListener('touchstart', onTouchStart);
      window.removeEventListener('touchmove', onTouchMove);
      window.removeEventListener('keydown', onKeyDown);
    };
  }, [locked, card]);

  return locked;
}

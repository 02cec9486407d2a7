import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScrollLockPage } from '../pages/scroll-lock-page.tsx';
import { isScrolledToBottom, shouldLockScroll } from './use-scroll-lock.ts';

describe('shouldLockScroll', () => {
  it('locks only while the middle section is at least half visible and the card is not at its bottom', () => {
    expect(shouldLockScroll({ visibleRatio: 0.5, cardAtBottom: false })).toBe(true);
    expect(shouldLockScroll({ visibleRatio: 1, cardAtBottom: false })).toBe(true);
    expect(shouldLockScroll({ visibleRatio: 0.49, cardAtBottom: false })).toBe(false);
    expect(shouldLockScroll({ visibleRatio: 0.8, cardAtBottom: true })).toBe(false);
    expect(shouldLockScroll({ visibleRatio: 0, cardAtBottom: true })).toBe(false);
  });
});

describe('isScrolledToBottom', () => {
  const box = (scrollTop: number) => ({ scrollTop, clientHeight: 200, scrollHeight: 600 }) as HTMLElement;
  it('is true within a pixel of the bottom', () => {
    expect(isScrolledToBottom(box(399.5))).toBe(true);
    expect(isScrolledToBottom(box(400))).toBe(true);
    expect(isScrolledToBottom(box(300))).toBe(false);
  });
});

describe('useScrollLock on the demo page', () => {
  let report: (ratio: number) => void = () => {};

  beforeEach(() => {
    class FakeObserver {
      constructor(private callback: IntersectionObserverCallback) {}
      observe(target: Element) {
        report = (ratio) =>
          this.callback(
            [{ target, intersectionRatio: ratio, isIntersecting: ratio > 0 } as IntersectionObserverEntry],
            this as unknown as IntersectionObserver,
          );
      }
      disconnect() {}
    }
    window.IntersectionObserver = FakeObserver as unknown as typeof IntersectionObserver;
  });
  afterEach(() => {
    document.documentElement.style.overflow = '';
  });

  // jsdom lays nothing out: give the card a scrollable height, scrolled to `scrollTop`.
  function scrollCard(scrollTop: number) {
    const card = screen.getByRole('region', { name: 'Story card' });
    Object.defineProperties(card, {
      scrollHeight: { value: 1000, configurable: true },
      clientHeight: { value: 300, configurable: true },
    });
    act(() => {
      card.scrollTop = scrollTop;
      card.dispatchEvent(new Event('scroll'));
    });
  }

  it('locks the page when half the section shows, and releases it when the visitor leaves the page', () => {
    const { unmount } = render(<ScrollLockPage />);
    scrollCard(0);
    expect(screen.getByRole('status')).toHaveTextContent('Page scrolling is free');
    act(() => report(0.4));
    expect(screen.getByRole('status')).toHaveTextContent('Page scrolling is free');
    act(() => report(0.6));
    expect(screen.getByRole('status')).toHaveTextContent('Page scrolling is locked');
    expect(document.documentElement.style.overflow).toBe('hidden');
    unmount();
    expect(document.documentElement.style.overflow).toBe('');
  });

  it('releases the lock once the card is scrolled to its bottom', () => {
    render(<ScrollLockPage />);
    scrollCard(0);
    act(() => report(1));
    expect(screen.getByRole('status')).toHaveTextContent('Page scrolling is locked');
    scrollCard(700);
    expect(screen.getByRole('status')).toHaveTextContent('Page scrolling is free');
    expect(document.documentElement.style.overflow).toBe('');
  });
});

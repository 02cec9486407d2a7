import { afterEach, describe, expect, it, vi } from 'vitest';
import { whenMotionNeeded } from './page-motion.tsx';

const settled = async (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 10));
  return done;
};

/** A stand-in for the browser's IntersectionObserver (jsdom has none) that reports what the test says. */
function stubIntersectionObserver(intersecting: boolean) {
  const observed: Element[] = [];
  class Observer {
    constructor(private callback: IntersectionObserverCallback) {}
    observe(element: Element) {
      observed.push(element);
      this.callback([{ isIntersecting: intersecting, target: element } as IntersectionObserverEntry], this as never);
    }
    disconnect() {}
  }
  vi.stubGlobal('IntersectionObserver', Observer);
  return observed;
}

describe('whenMotionNeeded', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('waits while the visitor does nothing and no animated element is near the viewport', async () => {
    document.body.innerHTML = '<div data-reveal></div><div data-motion></div>';
    const observed = stubIntersectionObserver(false);
    expect(await settled(whenMotionNeeded())).toBe(false);
    expect(observed).toHaveLength(2);
  });

  it.each(['scroll', 'wheel', 'keydown', 'pointerdown', 'touchstart'])('is needed on the first %s', async (type) => {
    document.body.innerHTML = '<div data-reveal></div>';
    stubIntersectionObserver(false);
    const needed = whenMotionNeeded();
    window.dispatchEvent(new Event(type));
    expect(await settled(needed)).toBe(true);
  });

  it('does not count an element inside the page scrolling itself', async () => {
    document.body.innerHTML = '<div data-reveal></div><ul id="chips"></ul>';
    stubIntersectionObserver(false);
    const needed = whenMotionNeeded();
    document.getElementById('chips')!.dispatchEvent(new Event('scroll'));
    expect(await settled(needed)).toBe(false);
  });

  it('stops watching when the page has gone', async () => {
    document.body.innerHTML = '<div data-reveal></div>';
    stubIntersectionObserver(false);
    const page = new AbortController();
    const needed = whenMotionNeeded(page.signal);
    page.abort();
    window.dispatchEvent(new Event('keydown'));
    expect(await settled(needed)).toBe(false);
  });

  it('is needed at once when an animated element is already near the viewport', async () => {
    document.body.innerHTML = '<div data-reveal></div>';
    stubIntersectionObserver(true);
    expect(await settled(whenMotionNeeded())).toBe(true);
  });
});

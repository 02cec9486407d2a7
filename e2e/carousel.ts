/** What the journeys measure of the hero's carousel of app screens, in the page. */

export interface Box {
  slide: string;
  x: number;
  y: number;
  width: number;
  height: number;
  loaded: boolean;
}

declare global {
  interface Window {
    carouselBoxes: () => { boxes: Box[]; left: number; right: number };
    carouselFrames: { ready: boolean; boxes: Box[] }[];
  }
}

/** The screens seen: inside the carousel's clipped list and the window, left to right. */
export function measureTheCarousel() {
  const carousel = document.querySelector('[aria-label="app screens"]');
  const list = carousel?.querySelector('.slick-list')?.getBoundingClientRect();
  if (!carousel || !list) return { boxes: [], left: 0, right: 0 };
  const left = Math.max(0, list.left);
  const right = Math.min(window.innerWidth, list.right);
  const boxes = [...carousel.querySelectorAll('.slick-slide img')]
    .map((image) => ({ image: image as HTMLImageElement, box: image.getBoundingClientRect() }))
    .filter(({ box }) => box.width > 0 && box.right > left && box.left < right)
    .sort((a, b) => a.box.left - b.box.left)
    .map(({ image, box }) => ({
      slide: new URL(image.src).pathname,
      x: box.x,
      y: box.y,
      width: box.width,
      height: box.height,
      loaded: image.complete && image.naturalWidth > 0,
    }));
  return { boxes, left, right };
}

/**
 * Installed before the page's own code (with `measureTheCarousel` as `window.carouselBoxes`): a record of the screens
 * seen in every animation frame in which they changed.
 */
export function watchTheCarousel() {
  window.carouselFrames = [];
  let last = '';
  const sample = () => {
    const { boxes } = window.carouselBoxes();
    const key = JSON.stringify(boxes.map(({ loaded: _loaded, ...place }) => place));
    if (boxes.length > 0 && key !== last) {
      last = key;
      window.carouselFrames.push({ ready: document.documentElement.dataset.ready === 'true', boxes });
    }
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
}

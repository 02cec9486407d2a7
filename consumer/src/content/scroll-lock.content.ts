export const scrollLockDemo = {
  title: 'Scroll-lock demo',
  sections: {
    before: {
      title: 'Scroll down',
      body: 'Keep scrolling. When the next section is at least half in view, the page holds still and the card inside it scrolls instead.',
    },
    locked: {
      title: 'Read the card to the end',
      body: 'The page is locked until the card below has been scrolled to its bottom. Wheel, touch and keyboard all scroll the card.',
      cardLabel: 'Story card',
      paragraphs: Array.from(
        { length: 12 },
        (_, index) =>
          `Part ${index + 1}. Gifts carry a story: who it is for, why now, what it says that words alone would not. Scroll on to read the rest.`,
      ),
    },
    after: {
      title: 'Released',
      body: 'You reached the end of the card, so the page scrolls normally again.',
    },
  },
  status: { locked: 'Page scrolling is locked', free: 'Page scrolling is free' },
};

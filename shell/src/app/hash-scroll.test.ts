import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scrollToWhenRendered } from './hash-scroll.ts';

describe('scrollToWhenRendered', () => {
  const scrolled: string[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this.id);
    };
  });
  afterEach(() => {
    vi.useRealTimers();
    scrolled.length = 0;
    document.body.innerHTML = '';
  });

  it('scrolls at once to a section that is already on the page', () => {
    document.body.innerHTML = '<section id="faqs"></section>';
    scrollToWhenRendered('faqs');
    expect(scrolled).toEqual(['faqs']);
  });

  it('moves focus to the section, so that the next Tab goes on from there', () => {
    document.body.innerHTML = '<a href="#faqs">FAQs</a><section id="faqs"><a href="/x">x</a></section>';
    document.querySelector<HTMLAnchorElement>('a')!.focus();
    scrollToWhenRendered('faqs');
    expect(document.activeElement).toBe(document.getElementById('faqs'));
    expect(document.getElementById('faqs')).toHaveAttribute('tabindex', '-1');
  });

  it('waits for a section that a remote renders later, then scrolls to it once', async () => {
    scrollToWhenRendered('features');
    expect(scrolled).toEqual([]);
    const section = document.createElement('section');
    section.id = 'features';
    document.body.append(section);
    await vi.advanceTimersByTimeAsync(0);
    document.body.append(document.createElement('div'));
    await vi.advanceTimersByTimeAsync(0);
    expect(scrolled).toEqual(['features']);
  });

  it('gives up after its timeout and does not jump when the section appears much later', async () => {
    scrollToWhenRendered('late', 1000);
    await vi.advanceTimersByTimeAsync(1001);
    const section = document.createElement('section');
    section.id = 'late';
    document.body.append(section);
    await vi.advanceTimersByTimeAsync(0);
    expect(scrolled).toEqual([]);
  });

  it('stops waiting when the visitor navigates away', async () => {
    const stop = scrollToWhenRendered('features');
    stop();
    const section = document.createElement('section');
    section.id = 'features';
    document.body.append(section);
    await vi.advanceTimersByTimeAsync(0);
    expect(scrolled).toEqual([]);
  });
});

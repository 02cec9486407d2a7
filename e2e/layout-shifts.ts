import type { Page } from '@playwright/test';

export interface Shift {
  value: number;
  at: number;
  moved: string[];
}

/**
 * In the page, before its first byte: every layout shift not caused by input, with what moved (its element, from where
 * to where) and when, so that a failure says what to look at.
 */
export function watchLayoutShifts() {
  const shifts: Shift[] = [];
  (window as unknown as { layoutShifts: typeof shifts }).layoutShifts = shifts;
  const rect = ({ x, y, width, height }: DOMRectReadOnly) =>
    `${Math.round(x)},${Math.round(y)} ${Math.round(width)}x${Math.round(height)}`;
  const named = (node: Node | null) =>
    node instanceof Element
      ? `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}${node.className && typeof node.className === 'string' ? `.${node.className.split(' ')[0]}` : ''}`
      : String(node?.nodeName);
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & {
      value: number;
      hadRecentInput: boolean;
      sources: { node: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
    })[]) {
      if (entry.hadRecentInput) continue;
      shifts.push({
        value: entry.value,
        at: Math.round(entry.startTime),
        moved: entry.sources.map(
          (source) => `${named(source.node)} ${rect(source.previousRect)} -> ${rect(source.currentRect)}`,
        ),
      });
    }
  }).observe({ type: 'layout-shift', buffered: true });
}

export const layoutShiftsOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { layoutShifts: Shift[] }).layoutShifts);

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

const wcagTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * A script that runs axe in any page (Firefox's and WebKit's drivers too, which have no AxeBuilder) and leaves each
 * WCAG 2.2 AA violation, one line each, in `window.__axe` once done: the same axe-core and the same rules.
 */
export function axeInPage(): string {
  const playwrightAdapter = createRequire(import.meta.url).resolve('@axe-core/playwright');
  const source = readFileSync(createRequire(playwrightAdapter).resolve('axe-core/axe.min.js'), 'utf8');
  return `(function(){window.__axe=undefined;${source};window.axe.run(document,{runOnly:{type:'tag',values:${JSON.stringify(
    wcagTags,
  )}}}).then(function(r){window.__axe=r.violations.flatMap(function(v){return v.nodes.map(function(n){return v.id+': '+n.target.join(' ')+' ('+v.help+')'})})},function(e){window.__axe=['axe failed: '+e]});return true})()`;
}

/** Waits for the page's transitions and animations to finish (those that do). */
const settled = (page: Page) =>
  page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );

async function analyze(page: Page): Promise<string[]> {
  await settled(page);
  const results = await new AxeBuilder({ page }).withTags(wcagTags).analyze();
  return results.violations.flatMap((violation) =>
    violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} (${violation.help})`),
  );
}

/**
 * Every WCAG 2.2 AA violation axe finds in the page once its transitions and animations have finished (a colour
 * half-way through a fade is not what the visitor reads), one line each, so a failure names them. A part that moves
 * by itself (the landing page's taglines fade every 3 s) can start a fade while axe reads it (a reading takes 10 s
 * on a busy machine, and two readings in a row both caught one): what axe finds is read again with every transition
 * and animation made instant, so that each part is in a settled state whenever axe looks, and a violation counts
 * when both readings have it.
 */
export async function violations(page: Page): Promise<string[]> {
  const first = await analyze(page);
  if (first.length === 0) return first;
  const instant = await page.addStyleTag({
    content: '*, *::before, *::after { transition: none !important; animation: none !important; }',
  });
  const again = new Set(await analyze(page));
  await instant.evaluate((style) => (style as Element).remove());
  return first.filter((violation) => again.has(violation));
}

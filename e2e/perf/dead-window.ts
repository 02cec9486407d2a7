/**
 * The dead window after first paint, on the phone profile: for each control a visitor uses as soon as they see
 * it, the page is loaded afresh and the control is used T ms after its first contentful paint, for each T below.
 * Prints, per control, whether the page answered at each T and the first T from which it always does. Budget:
 * 0 ms, every control answers from first paint. `CONTROLS=menu,FAQ` picks controls by name.
 */
import { chromium, type Browser } from '@playwright/test';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { firstPaintControls, type FirstPaintControl } from '../first-paint-controls.ts';
import { firstContentfulPaint, phonePage, untilHydrated } from '../phone.ts';
import { startSite, waitFor } from './site.ts';
import { median } from './stats.ts';

const port = Number(process.env.DEAD_WINDOW_PORT ?? 4330);
const base = `http://127.0.0.1:${port}`;
// Right at first paint, and while the scripts arrive (pages hydrate 1.2-1.4 s after first paint): the journeys in
// first-paint.spec.ts already act before the scripts, held back, on every test run.
export const delaysMs = [0, 1000];
const budgetMs = 0;
const only = process.env.CONTROLS?.split(',');
const controls = firstPaintControls.filter((control) => !only || only.some((name) => control.name.includes(name)));

interface Trial {
  answered: boolean;
  fcpMs: number;
  hydratedMs: number;
  problem?: string;
}

async function trial(browser: Browser, control: FirstPaintControl, delayMs: number) {
  const page = await phonePage(browser);
  const marker = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  try {
    await page.goto(base + control.path, { waitUntil: 'commit' });
    const fcpMs = await firstContentfulPaint(page);
    await page.waitForFunction((at) => performance.now() >= at, fcpMs + delayMs, { polling: 10, timeout: 30_000 });
    let problem: string | undefined;
    try {
      await control.act(page, marker);
      await control.answered(page, marker, true);
    } catch (error) {
      problem = (error as Error).message.split('\n')[0];
    }
    await untilHydrated(page).catch(() => undefined);
    const hydratedMs = await page.evaluate(() => {
      const mark = performance.getEntriesByName('hydrated')[0];
      return mark ? mark.startTime : Number.NaN;
    });
    return { answered: !problem, fcpMs, hydratedMs, problem } satisfies Trial;
  } finally {
    await page.context().close();
  }
}

/** The first delay from which every later one answered too; undefined when even the last did not. */
export function answersFrom(results: boolean[]): number | undefined {
  let from: number | undefined;
  for (let index = results.length - 1; index >= 0 && results[index]; index--) from = delaysMs[index];
  return from;
}

async function main() {
  const site = startSite(port, { RATE_LIMIT_PER_IP: '10000', RATE_LIMIT_PER_EMAIL: '1000', OUTBOX_INTERVAL_MS: '200' });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const misses: string[] = [];
  try {
    await waitFor(`${base}/remotes.json`);
    console.log(
      `\nDead window after first paint, phone profile (4x CPU, 150 ms, 1.6 Mbit/s), ${new Date().toISOString()}`,
    );
    console.log(
      `| control                              | ${delaysMs.map((t) => `${t} ms`.padStart(7)).join(' | ')} | answers from | FCP ms | hydrated ms |`,
    );
    console.log(
      `| ------------------------------------ | ${delaysMs.map(() => '-------').join(' | ')} | ------------ | ------ | ----------- |`,
    );
    for (const control of controls) {
      const trials: Trial[] = [];
      for (const delay of delaysMs) trials.push(await trial(browser, control, delay));
      const from = answersFrom(trials.map((one) => one.answered));
      const fcp = median(trials.map((one) => one.fcpMs));
      const hydrated = median(trials.map((one) => one.hydratedMs).filter(Number.isFinite));
      console.log(
        `| ${control.name.padEnd(36)} | ${trials.map((one) => (one.answered ? 'yes' : 'NO').padStart(7)).join(' | ')} | ${(from === undefined ? 'never' : `${from} ms`).padStart(12)} | ${Math.round(fcp).toString().padStart(6)} | ${(Number.isFinite(hydrated) ? Math.round(hydrated).toString() : '-').padStart(11)} |`,
      );
      for (const [index, one] of trials.entries()) {
        if (one.problem && process.env.VERBOSE) console.log(`    at ${delaysMs[index]} ms: ${one.problem}`);
      }
      if (from === undefined || from > budgetMs) {
        misses.push(
          `${control.name}: answers from ${from === undefined ? 'never' : `${from} ms`} (budget ${budgetMs} ms)`,
        );
      }
    }
  } finally {
    await browser.close();
    site.kill('SIGTERM');
  }
  if (misses.length) {
    console.log(
      `\n${misses.length} control(s) miss the dead-window budget:\n${misses.map((line) => `- ${line}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.log('Every control answers from first paint.');
}

await main();

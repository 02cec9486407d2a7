/**
 * First paint beside two floors, over enough loads to tell 0.1x apart (issue 79). Per route, CONTENT_RUNS rounds (21)
 * of three loads in an order drawn anew each round, on the phone profile, each in a fresh context: the React floor,
 * the page as the site serves it, and the same page less what the composition adds to it (the content floor:
 * react-floor's content-floor.mts, served by the site server's page path). Prints per route the median first paints;
 * the site's over the React floor's with the 5th-95th percentile of 2,000 resamples; the content floor's over the React
 * floor's (what the page's own markup and styles cost at first paint); the site's over the content floor's (what the
 * composition adds). Reported, not judged: `perf:interactive` judges issue 79's goal as the issue states it (median of
 * 5); this says how much of a miss is the page's content and how much its composition. `ROUTES=/,/privacy` picks
 * routes. With CONTENT_BEFORE_ROOT (another checkout of the site, built), its page is a fourth load in each round, drawn
 * in the same order: "site x before" says what a change costs at first paint, measured alternately in one run.
 */
import { chromium, type Browser } from '@playwright/test';
import { startContentFloor } from 'react-floor/content-floor';
import { startFloor } from 'react-floor/serve';
import { chromiumArgs, chromiumPath } from '../chromium.ts';
import { examplePagePaths } from '../example-pages.ts';
import { firstContentfulPaint, phonePage } from '../phone.ts';
import { startSite, waitFor } from './site.ts';
import { median, ratioInterval, seededRandom } from './stats.ts';

const port = Number(process.env.CONTENT_PORT ?? 4360);
const runs = Number(process.env.CONTENT_RUNS ?? 21);
const only = process.env.ROUTES?.split(',');
const routes = [...examplePagePaths, '/no-such-page'].filter((path) => !only || only.includes(path));
/** Issue 79's goal for first paint, as a ratio to the React floor's. */
const goal = 1.3;

const beforeRoot = process.env.CONTENT_BEFORE_ROOT;
const allKinds = ['floor', 'site', 'content', 'before'] as const;
type Kind = (typeof allKinds)[number];
const kinds: readonly Kind[] = beforeRoot ? allKinds : allKinds.slice(0, 3);

/** A seeded order, so that a run can be repeated load for load. */
const random = seededRandom(79);
const shuffled = <T>(items: readonly T[]) =>
  items
    .map((item) => [random(), item] as const)
    .sort(([a], [b]) => a - b)
    .map(([, item]) => item);

async function firstPaint(browser: Browser, url: string): Promise<number> {
  const page = await phonePage(browser);
  try {
    await page.goto(url, { waitUntil: 'commit' });
    return await firstContentfulPaint(page);
  } finally {
    await page.context().close();
  }
}

/** This checkout's first paint over the other checkout's, with the reach of this run's noise. */
function beforeCell(site: number[], before: number[]) {
  const [low, high] = ratioInterval(site.map((value, round): [number, number] => [value, before[round]!]));
  return `${(median(site) / median(before)).toFixed(2)} (${low.toFixed(2)}-${high.toFixed(2)})`;
}

async function main() {
  const site = startSite(port);
  const base = `http://127.0.0.1:${port}`;
  const floor = await startFloor(port + 10);
  await waitFor(`${base}/`);
  const content = await startContentFloor(port + 20, base);
  const before = beforeRoot ? startSite(port + 30, {}, beforeRoot) : undefined;
  if (before) await waitFor(`http://127.0.0.1:${port + 30}/`);
  const origins: Partial<Record<Kind, string>> = {
    floor: `http://127.0.0.1:${port + 10}`,
    site: base,
    content: `http://127.0.0.1:${port + 20}`,
    ...(before && { before: `http://127.0.0.1:${port + 30}` }),
  };
  // Each page asked for once first, as a browser asks, so that no round's load waits for a page to be compressed.
  for (const [kind, origin] of Object.entries(origins)) {
    for (const path of kind === 'floor' ? ['/'] : routes) {
      await fetch(`${origin}${path}`, { headers: { accept: 'text/html', 'accept-encoding': 'br' } });
    }
  }
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  const paints = new Map(
    routes.map((path) => [path, { floor: [], site: [], content: [], before: [] } as Record<Kind, number[]>]),
  );
  try {
    for (let round = 0; round < runs; round++) {
      for (const path of shuffled(routes)) {
        for (const kind of shuffled(kinds)) {
          const url = kind === 'floor' ? `${origins.floor}/` : `${origins[kind]!}${path}`;
          paints.get(path)![kind].push(await firstPaint(browser, url));
        }
      }
      process.stdout.write(`\rround ${round + 1} of ${runs}`);
    }
  } finally {
    await browser.close();
    await content.close();
    await floor.close();
    site.kill();
    before?.kill();
  }
  console.log(
    `\n\nFirst paint on the phone profile, median of ${runs} rounds a route (the React floor, the page, the page less` +
      ' its composition, in a drawn order); 5-95%: where the resampled ratio of medians falls\n',
  );
  const header = [
    'route',
    'floor ms',
    'site ms',
    'content ms',
    'site x floor (5-95%)',
    'content x floor',
    'site x content',
    ...(beforeRoot ? ['before ms', 'site x before (5-95%)'] : []),
  ];
  const rows = routes.map((path) => {
    const { floor, site, content, before } = paints.get(path)!;
    const [low, high] = ratioInterval(site.map((value, round): [number, number] => [value, floor[round]!]));
    const [siteRatio, contentRatio] = [median(site) / median(floor), median(content) / median(floor)];
    return {
      path,
      siteRatio,
      contentRatio,
      cells: [
        path.length > 24 ? `${path.slice(0, 23)}…` : path,
        median(floor).toFixed(0),
        median(site).toFixed(0),
        median(content).toFixed(0),
        `${siteRatio.toFixed(2)} (${low.toFixed(2)}-${high.toFixed(2)})`,
        contentRatio.toFixed(2),
        (median(site) / median(content)).toFixed(2),
        ...(beforeRoot ? [median(before).toFixed(0), beforeCell(site, before)] : []),
      ],
    };
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map(({ cells }) => cells[column]!.length)),
  );
  for (const cells of [header, ...rows.map(({ cells }) => cells)]) {
    console.log(
      cells.map((cell, column) => (column ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  '),
    );
  }
  const over = rows.filter(({ siteRatio }) => siteRatio > goal).map(({ path }) => path);
  const contentOver = rows.filter(({ contentRatio }) => contentRatio > goal).map(({ path }) => path);
  console.log(
    `\nFirst paint at most ${goal}x the React floor's (issue 79): ${rows.length - over.length} of ${rows.length} routes` +
      (over.length ? `; over it: ${over.join(', ')}` : '') +
      `. The content floor alone over it: ${contentOver.length ? contentOver.join(', ') : 'none'}.`,
  );
}

await main();

import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import type { RolloutWebhookEvent } from '@gift/contracts/webhooks';
import {
  beaconedView,
  openDoors,
  operatorsAlerts,
  startWatchedSite,
  visitorAt,
  webhookReceiver,
} from '../field-doors.ts';
import {
  firstDeployment,
  pageFiles,
  promoteTimeout,
  publishChanged,
  releaseCommand,
  rewrite,
  rewritePage,
} from '../release-commands.ts';
import { placeIn, testIdOf, type Rollout } from 'site-server/cohorts';
import { expect, test } from './support.ts';

/**
 * A staged rollout as a team meets it: a new legal (its privacy page titled "Privacy Notice") serves 5% of visitors by
 * their place in it (their cohort cookie's id) while everyone else keeps the current one; a canary that throws on a click is
 * taken off by the watch from its own cohort's field data; a good one goes 5% -> 25% -> 100% by itself.
 */
const sitePort = 4341;
const site = `http://127.0.0.1:${sitePort}`;
const webhookSecret = 'webhook-secret-for-the-rollout-journey-0123456789';
let deployDir = '';
let env: NodeJS.ProcessEnv = {};
let server: ChildProcess | undefined;
let receiver: Awaited<ReturnType<typeof webhookReceiver<RolloutWebhookEvent>>> | undefined;
let doors: Awaited<ReturnType<typeof openDoors>> | undefined;
let alerts: Awaited<ReturnType<typeof operatorsAlerts>> | undefined;
/** The candidate whose privacy page says "Privacy Notice". */
let renamed = '';

async function succeeds(args: string[]) {
  const { code, printed } = await releaseCommand(args, env);
  expect(code, `${args.join(' ')}: ${printed}`).toBe(0);
  return printed;
}

/** Rolls `version` of legal out in stages of 5, 25 and 100% of `stageMinutes` each, its checks skipped for `reason`. */
const rollOutForced = (version: string, stageMinutes: string, reason: string) =>
  succeeds([
    'promote',
    'legal',
    version,
    '--stages',
    '5,25,100',
    '--stage-minutes',
    stageMinutes,
    '--force',
    '--reason',
    reason,
  ]);

/** Publishes a candidate of legal made from its real build, changed by `change`; resolves with its version. */
const candidate = (change: (dist: string) => void) => publishChanged('legal', env, change);

const rolloutsFile = () => join(deployDir, 'remotes.rollouts.json');
/** The rollout of legal under way, as the site servers read it; undefined when none. */
const rollout = () =>
  existsSync(rolloutsFile())
    ? (JSON.parse(readFileSync(rolloutsFile(), 'utf8')) as Record<string, Rollout | undefined>).legal
    : undefined;
const liveLegal = () =>
  /\/legal\/([^/]+)\//.exec((JSON.parse(readFileSync(env.REMOTES_MANIFEST!, 'utf8')) as { legal: string }).legal)![1]!;

/** A browser context of a visitor placed at `place` (0-99) in the rollout under way, on every port of 127.0.0.1. */
async function visitor(browser: Browser, place: number): Promise<BrowserContext> {
  const context = await browser.newContext();
  const value = visitorAt(rolloutsFile(), 'legal', place);
  await context.addCookies([{ name: 'cohort', value, domain: '127.0.0.1', path: '/' }]);
  return context;
}

const privacyHeading = (page: Page) => page.getByRole('heading', { level: 1 });

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  receiver = await webhookReceiver<RolloutWebhookEvent>(webhookSecret);
  ({ deployDir, env } = await firstDeployment('rollout-journey'));
  renamed = await candidate((dist) => {
    for (const file of [...pageFiles(dist, 'privacy-page'), join(dist, 'ssr', 'privacy-page.js')]) {
      rewrite(file, (text) => text.replaceAll('Privacy Policy', 'Privacy Notice'));
    }
  });
  server = await startWatchedSite({ deployDir, env }, sitePort, { url: receiver.url, secret: webhookSecret });
  doors = await openDoors(sitePort, 25);
  alerts = await operatorsAlerts(sitePort);
});

test.afterAll(async () => {
  doors?.close();
  await alerts?.stop();
  server?.kill('SIGTERM');
  await receiver?.close();
  rmSync(deployDir, { recursive: true, force: true });
});

test('two cohorts see two versions of /privacy, each on reload and client-side navigation; /vendor is the same', async ({
  browser,
}) => {
  test.setTimeout(promoteTimeout(1, 90_000));
  const current = liveLegal();
  await succeeds(['promote', 'legal', renamed, '--stages', '5,25,100', '--stage-minutes', '60']);
  expect(rollout()).toMatchObject({ version: renamed, stage: 0 });
  expect(liveLegal()).toBe(current);
  // The list marks both: the live version for the others, and the canary with its share.
  const list = await succeeds(['releases', 'legal']);
  expect(list).toMatch(new RegExp(`^\\* ${current}  .*  \\(live\\)$`, 'm'));
  expect(list).toMatch(new RegExp(`^~ ${renamed}  .*  \\(canary: 5% of visitors\\)$`, 'm'));

  const inCanary = await (await visitor(browser, 2)).newPage();
  const inCurrent = await (await visitor(browser, 70)).newPage();
  for (const [page, title] of [
    [inCanary, 'Privacy Notice'],
    [inCurrent, 'Privacy Policy'],
  ] as const) {
    await page.goto(`${site}/privacy`);
    await expect(privacyHeading(page)).toHaveText(title);
    await page.reload();
    await expect(privacyHeading(page)).toHaveText(title);
    // Client-side (once hydrated: before, the link is a plain one): to the terms and back, in the same document, with
    // the same build of legal.
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true');
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same document'));
    await page.getByRole('contentinfo').getByRole('link', { name: 'Terms & Conditions' }).click();
    await expect(privacyHeading(page)).toHaveText('Terms & Conditions');
    await page.getByRole('contentinfo').getByRole('link', { name: 'Privacy Policy' }).click();
    await expect(privacyHeading(page)).toHaveText(title);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same document');
  }
  // Every legal file either page loaded is of its own cohort's build: no mixed builds.
  const legalFiles = async (page: Page) =>
    (await page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name)))
      .map((url) => /\/remotes\/legal\/([^/]+)\//.exec(url)?.[1])
      .filter(Boolean);
  expect(new Set(await legalFiles(inCanary))).toEqual(new Set([renamed]));
  expect(new Set(await legalFiles(inCurrent))).toEqual(new Set([current]));

  // Another remote is untouched: the same vendor page for both.
  const vendorHtml: string[] = [];
  for (const page of [inCanary, inCurrent]) {
    await page.goto(`${site}/vendor`);
    await expect(privacyHeading(page)).toBeVisible();
    vendorHtml.push(await privacyHeading(page).innerText());
    vendorHtml.push(
      await page.evaluate(async () => ((await (await fetch('/remotes.json')).json()) as { vendor: string }).vendor),
    );
  }
  expect(vendorHtml[0]).toBe(vendorHtml[2]);
  expect(vendorHtml[1]).toBe(vendorHtml[3]);

  // A first visit without the cookie is given its id, and this first page is already its arm's: the one its id
  // places it in, the same on the next page.
  const newcomer = await browser.newContext();
  const first = await newcomer.newPage();
  await first.goto(`${site}/privacy`);
  const id = (await newcomer.cookies()).find((cookie) => cookie.name === 'cohort');
  expect(id).toMatchObject({ httpOnly: true, sameSite: 'Lax', value: expect.stringMatching(/^[\w-]{22}$/) });
  const arm = placeIn(testIdOf(rollout()!), id!.value) < 5 ? 'Privacy Notice' : 'Privacy Policy';
  await expect(privacyHeading(first)).toHaveText(arm);
  await first.reload();
  await expect(privacyHeading(first)).toHaveText(arm);

  // Ended by hand: everyone has the current version again, and it is recorded.
  expect(await succeeds(['rollout', 'legal', 'abort', '--reason', 'the journey looked'])).toContain(
    `every visitor has ${current} again`,
  );
  await expect
    .poll(async () => (await inCanary.goto(`${site}/privacy`), privacyHeading(inCanary).innerText()))
    .toBe('Privacy Policy');
  await Promise.all([inCanary.context().close(), inCurrent.context().close(), newcomer.close()]);
});

test('a canary that throws on a click is aborted at 5% by its own cohort’s field data; the other cohort never saw it', async ({
  browser,
}) => {
  test.setTimeout(promoteTimeout(1, 120_000));
  const current = liveLegal();
  const broken = await candidate((dist) =>
    rewritePage(
      dist,
      'privacy-page',
      (text) => `document.addEventListener("click",()=>{throw new Error("canary broke on a click")});\n${text}`,
    ),
  );
  // Forced: the checks cannot see it (nobody clicks in them); the first journey ran them with --stages.
  await rollOutForced(broken, '60', 'the rollout journey');

  // The other cohort reads and clicks: nothing breaks for it.
  const calm = await (await visitor(browser, 50)).newPage();
  const calmErrors: string[] = [];
  calm.on('pageerror', (error) => calmErrors.push(error.message));
  await calm.goto(`${site}/privacy`);
  await privacyHeading(calm).click();

  // Canary visitors (places 0-4) click, from 25 networks in turn; each view's beacon goes as the next page replaces it.
  const canaryErrors: string[] = [];
  const canaryPages = await Promise.all(
    [0, 1, 2, 3, 4].map(async (place) => {
      const page = await (await visitor(browser, place)).newPage();
      page.on('pageerror', (error) => canaryErrors.push(error.message));
      return page;
    }),
  );
  for (let view = 0; view < 70 && rollout()?.version === broken; view++) {
    const page = canaryPages[view % canaryPages.length]!;
    await page.goto(`${doors!.urls[view % doors!.urls.length]}/privacy`);
    await privacyHeading(page).click();
  }
  // The last views' beacons go as their pages close.
  await Promise.all(canaryPages.map((page) => page.context().close()));
  expect(canaryErrors).toContain('canary broke on a click');

  await expect.poll(rollout, { timeout: 20_000 }).toBeUndefined();
  expect(liveLegal()).toBe(current);
  const { printed } = await releaseCommand(['releases', 'legal'], env);
  expect(printed).toMatch(
    new RegExp(
      `${broken}\\s+forced: .*\\n\\s+rollout started: 5%, .*\\n\\s+rollout aborted at 5% by the release watch: worse .*: errors`,
    ),
  );
  await expect.poll(() => receiver!.received.map(({ event }) => event.type)).toContain('rollout.aborted');
  const aborted = receiver!.received.find(({ event }) => event.type === 'rollout.aborted')!;
  expect(aborted.problem).toBeUndefined();
  expect(aborted.event.rollout).toMatchObject({ remote: 'legal', version: broken, current, share: 5 });

  // The calm cohort's page never named the canary; its clicks never broke anything; the canary's visitors are back.
  await calm.reload();
  await privacyHeading(calm).click();
  expect(calmErrors).toEqual([]);
  const back = await (await visitor(browser, 0)).newPage();
  const backErrors: string[] = [];
  back.on('pageerror', (error) => backErrors.push(error.message));
  await back.goto(`${site}/privacy`);
  await privacyHeading(back).click();
  expect(backErrors).toEqual([]);
  await Promise.all([calm.context().close(), back.context().close()]);
});

test('a good canary advances 5% -> 25% -> 100% by itself when its stages are due, and is live for everyone', async ({
  browser,
}) => {
  test.setTimeout(promoteTimeout(1, 150_000));
  const received = receiver!.received.length;
  await rollOutForced(renamed, '0.25', 'again');
  // A canary visitor in Chromium: the page is the canary's, and its own beacon goes as the next page replaces it.
  const canaryVisitor = visitorAt(rolloutsFile(), 'legal', 1);
  const context = await visitor(browser, 1);
  const page = await context.newPage();
  await page.goto(`${doors!.urls[0]}/privacy`);
  await expect(privacyHeading(page)).toHaveText('Privacy Notice');
  await page.goto(`${site}/vendor`);
  // Then canary visitors from the 25 networks in turn until the rollout is over, each view fetched and reported as a
  // browser would (its ticket, its beacon): each stage needs counted views from 20 networks that show it not worse
  // (with no current visitors in the stage, within the fixed limits: about two views a network), and its 15 s.
  const stages: number[] = [];
  const started = Date.now();
  for (let view = 0; rollout() && Date.now() - started < 90_000; view++) {
    const stage = rollout()?.stage;
    if (stage !== undefined && stages.at(-1) !== stage) stages.push(stage);
    const html = await beaconedView(doors!.urls[view % doors!.urls.length]!, '/privacy', canaryVisitor, {
      remote: 'legal',
      version: renamed,
    });
    expect(html).toContain('Privacy Notice');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await expect.poll(rollout, { timeout: 20_000 }).toBeUndefined();
  expect(stages).toEqual([0, 1]);
  expect(liveLegal()).toBe(renamed);
  await expect
    .poll(() => receiver!.received.slice(received).map(({ event }) => [event.type, event.rollout.share]))
    .toEqual([
      ['rollout.advanced', 25],
      ['rollout.completed', 100],
    ]);

  // Everyone has it now, whatever their place.
  const late = await (await visitor(browser, 99)).newPage();
  await late.goto(`${site}/privacy`);
  await expect(privacyHeading(late)).toHaveText('Privacy Notice');
  const { printed } = await releaseCommand(['releases', 'legal'], env);
  expect(printed).toMatch(new RegExp(`rollout\\s+-> ${renamed}`));
  await Promise.all([context.close(), late.context().close()]);
});

test('pnpm rehearse-rollout brings a local rollout visitors from many networks: the watch aborts a canary that errs', async () => {
  test.setTimeout(promoteTimeout(1, 90_000));
  const erring = await candidate(() => undefined);
  await rollOutForced(erring, '60', 'rehearsal');
  expect(rollout()).toMatchObject({ version: erring, stage: 0 });
  const rehearsal = spawnSync(
    process.execPath,
    ['bin/rehearse-rollout.mjs', 'legal', '--site', site, '--views', '300', '--canary-errors', '40'],
    {
      cwd: fileURLToPath(new URL('../../site-server/', import.meta.url)),
      encoding: 'utf8',
      env: { ...process.env, ...env },
    },
  );
  expect(rehearsal.status, rehearsal.stderr).toBe(0);
  expect(rehearsal.stdout).toMatch(
    new RegExp(
      `^300 views of /privacy from 300 networks: \\d+ of ${erring} \\(canary\\), \\d+ of \\S+ \\(live\\); the canary's views erred at 40%`,
    ),
  );
  await expect.poll(rollout, { timeout: 30_000 }).toBeUndefined();
  // Operators are told (by RolloutAborted, within the rule's 10 minutes), and of nothing but the watch's own steps.
  await expect.poll(() => alerts!.firing(), { timeout: 30_000 }).toContain('RolloutAborted legal');
  expect((await alerts!.firing()).filter((alert) => !/^(RolloutAborted|ReleaseRolledBack) legal$/.test(alert))).toEqual(
    [],
  );
  const { printed } = await releaseCommand(['releases', 'legal'], env);
  expect(printed).toMatch(
    new RegExp(
      `${erring}\\s+forced: rehearsal .*\\n\\s+rollout started: .*\\n\\s+rollout aborted at 5% by the release watch: worse .*: errors`,
    ),
  );
});

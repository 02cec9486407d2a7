import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from '@playwright/test';
import { fieldDataPath, goalPing } from '@gift/contracts/field-data';
import {
  beaconedView,
  browserAgent,
  nonceOf,
  openDoors,
  ticketRows,
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
import { expect, test } from './support.ts';

/**
 * An experiment as a team runs it on its pages: a new vendor page (its title reworded) serves half the visitors by
 * their place in it (their cohort cookie's id), beside the current one; clicks on the vendor portal's link, from 40 networks,
 * count as conversions of the arm each visitor saw, once per view; forged ones count nothing; `status` says the new
 * version converts more, and `ship` makes it live for everyone through a promote with its checks. Then a version that
 * breaks on a click is stopped by the release watch's guardrails, whatever it converts.
 */
const sitePort = 4347;
const site = `http://127.0.0.1:${sitePort}`;
const webhookSecret = 'webhook-secret-for-the-experiment-journey-0123456';
const currentTitle = 'Sell your gifts to people who are looking for them';
const newTitle = 'Sell your gifts where people look for them';
let deployDir = '';
let env: NodeJS.ProcessEnv = {};
let server: ChildProcess | undefined;
let receiver: Awaited<ReturnType<typeof webhookReceiver>> | undefined;
let doors: Awaited<ReturnType<typeof openDoors>> | undefined;
let reworded = '';
/** The version of vendor live when the journey began. */
let firstLive = '';

/** `pnpm experiment|releases ...` where the site's field data is (its DATA_DIR); what it printed, or it fails. */
async function succeeds(args: string[]) {
  const { code, printed } = await releaseCommand(args, { ...env, DATA_DIR: join(deployDir, 'data') });
  expect(code, `${args.join(' ')}: ${printed}`).toBe(0);
  return printed;
}

/** Publishes a candidate of vendor made from its real build, changed by `change`; resolves with its version. */
const candidate = (change: (dist: string) => void) => publishChanged('vendor', env, change);

const rolloutsFile = () => join(deployDir, 'remotes.rollouts.json');
/** The experiment on vendor under way, as the site servers read it; undefined when none. */
const experiment = () =>
  existsSync(rolloutsFile())
    ? (JSON.parse(readFileSync(rolloutsFile(), 'utf8')) as Record<string, { version: string }>).vendor
    : undefined;
const liveVendor = () =>
  /\/vendor\/([^/]+)\//.exec(
    (JSON.parse(readFileSync(env.REMOTES_MANIFEST!, 'utf8')) as { vendor: string }).vendor,
  )![1]!;

/** A page of a visitor placed at `place` (0-99) in the experiment under way: below 50, its new version. */
async function visitor(browser: Browser, place: number): Promise<Page> {
  const context = await browser.newContext();
  const value = visitorAt(rolloutsFile(), 'vendor', place);
  await context.addCookies([{ name: 'cohort', value, domain: '127.0.0.1', path: '/' }]);
  return context.newPage();
}

const title = (page: Page) => page.getByRole('heading', { level: 1 });

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  receiver = await webhookReceiver(webhookSecret);
  ({ deployDir, env } = await firstDeployment('experiment-journey'));
  reworded = await candidate((dist) => {
    for (const file of [...pageFiles(dist, 'vendor-page'), join(dist, 'ssr', 'vendor-page.js')]) {
      rewrite(file, (text) => text.replaceAll(currentTitle, newTitle));
    }
  });
  server = await startWatchedSite({ deployDir, env }, sitePort, { url: receiver.url, secret: webhookSecret });
  doors = await openDoors(sitePort, 40);
});

test.afterAll(async () => {
  doors?.close();
  server?.kill('SIGTERM');
  await receiver?.close();
  rmSync(deployDir, { recursive: true, force: true });
});

test('two arms of /vendor; portal clicks from 40 networks count for their arm once per view, forged ones not; ship promotes the winner with its checks', async ({
  browser,
}) => {
  test.setTimeout(promoteTimeout(1, 150_000));
  const current = liveVendor();
  firstLive = current;
  const started = await succeeds([
    'experiment',
    'vendor',
    'start',
    reworded,
    '--share',
    '50',
    '--days',
    '14',
    '--force',
    '--reason',
    'the experiment journey (ship runs the checks)',
  ]);
  expect(started).toContain(
    `vendor: experiment started: ${reworded} serves 50% of visitors, ${current} the others, for 14 days, judged on portal-click`,
  );
  expect(experiment()).toMatchObject({ version: reworded, experiment: { goal: 'portal-click', days: 14 } });
  // One experiment or rollout of a remote at a time.
  const { code, printed } = await releaseCommand(['promote', 'vendor', reworded, '--stages', '5,25,100'], env);
  expect([code, printed]).toEqual([1, expect.stringContaining(`An experiment on vendor ${reworded} is under way`)]);

  // In Chromium, a visitor of each arm through the first door: each sees its own version, and follows the portal
  // link (a new tab; the browser pings the goal with the view's ticket).
  for (const [place, heading] of [
    [10, newTitle],
    [70, currentTitle],
  ] as const) {
    const page = await visitor(browser, place);
    await page.goto(`${doors!.urls[0]}/vendor`);
    await expect(title(page)).toHaveText(heading);
    const ping = page.waitForResponse((response) => response.url().endsWith(goalPing('portal-click')));
    const opened = page.context().waitForEvent('page');
    await page.getByRole('link', { name: /Become a vendor/ }).click();
    expect((await ping).status()).toBe(204);
    await (await opened).close();
    // The view's own beacon goes as the next page replaces it: the view is counted once it is stored.
    const ticket = (await page.context().cookies()).find((cookie) => cookie.name === 'rum_vendor')!;
    await page.goto(`${doors!.urls[0]}/privacy`);
    await expect
      .poll(() => ticketRows(join(deployDir, 'data'), [nonceOf(ticket.value)]).some((row) => row.counted === 1))
      .toBe(true);
    await page.context().close();
  }

  // Then four views an arm from each of the 40 networks, as browsers make them (page, beacon, ping): on the new
  // version three in four follow the link, on the current one the first view of every fourth network.
  const [newArm, currentArm] = [visitorAt(rolloutsFile(), 'vendor', 10), visitorAt(rolloutsFile(), 'vendor', 70)];
  for (const [index, door] of doors!.urls.entries()) {
    for (let view = 0; view < 4; view++) {
      const next = await beaconedView(
        door,
        '/vendor',
        newArm,
        { remote: 'vendor', version: reworded },
        {
          goal: view < 3 ? 'portal-click' : undefined,
        },
      );
      expect(next).toContain(newTitle);
      const before = await beaconedView(
        door,
        '/vendor',
        currentArm,
        { remote: 'vendor', version: current },
        {
          goal: view === 0 && index % 4 === 0 ? 'portal-click' : undefined,
        },
      );
      expect(before).toContain(currentTitle);
    }
  }

  // Forged conversions: a ping without a ticket; one with a ticket that is not the site's; one with the ticket of
  // another view (a legal page's, under vendor's name); one from a page that has no such goal (refused).
  const door = doors!.urls[5]!;
  const ticketOf = async (path: string, remote: string) => {
    const view = await fetch(`${door}${path}`, {
      headers: { cookie: `cohort=${currentArm}`, 'user-agent': browserAgent },
    });
    await view.arrayBuffer();
    return view.headers
      .getSetCookie()
      .find((line) => line.startsWith(`rum_${remote}=`))!
      .split(';')[0]!;
  };
  const ticket = await ticketOf('/vendor', 'vendor');
  const legalTicket = await ticketOf('/privacy', 'legal');
  const ping = async (cookie: string, from: string) => {
    const answer = await fetch(`${door}${goalPing('portal-click')}`, {
      method: 'POST',
      headers: { 'content-type': 'text/ping', 'ping-from': `${door}${from}`, ...(cookie && { cookie }) },
      body: 'PING',
    });
    await answer.arrayBuffer();
    return answer.status;
  };
  expect(await ping('', '/vendor')).toBe(204);
  expect(await ping(`rum_vendor=forged.${'x'.repeat(43)}`, '/vendor')).toBe(204);
  expect(await ping(`rum_vendor=${legalTicket.split('=').slice(1).join('=')}`, '/vendor')).toBe(204);
  expect(await ping(ticket, '/')).toBe(400);
  // The view itself counts (its beacon), without a conversion.
  const beacon = await fetch(`${door}${fieldDataPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `cohort=${currentArm}; ${ticket}` },
    body: JSON.stringify({
      route: '/vendor',
      remote: 'vendor',
      version: current,
      shell: 'journey',
      viewport: 'phone',
      view: true,
      entries: [],
    }),
  });
  expect(beacon.status).toBe(204);

  // What the team reads: 161 views of the new version (the Chromium one and 160 fetched), 162 of the current one (and the forger's), each
  // converting view once: 121 on the new version, 11 on the current one, none of the forged pings.
  const status = await succeeds(['experiment', 'vendor', 'status']);
  expect(status).toMatch(/goal portal-click; day 1 of 14/);
  expect(status).toMatch(new RegExp(`current +${current} +162 +40 +11 +6\\.79%`));
  expect(status).toMatch(new RegExp(`new \\(50%\\) +${reworded} +161 +40 +121 +75\\.16%`));
  expect(status).toMatch(/decision so far: the new version converts more: /);
  expect(status).toMatch(/next: pnpm experiment vendor ship makes \S+ live for everyone, with the checks/);

  // Shipped: the experiment ends and the winner goes live for everyone through a promote that runs its checks.
  const shipped = await succeeds(['experiment', 'vendor', 'ship']);
  expect(shipped).toMatch(/checks passed in [\d.]+ s/);
  expect(liveVendor()).toBe(reworded);
  expect(experiment()).toBeUndefined();
  const everyone = await visitor(browser, 70);
  await everyone.goto(`${site}/vendor`);
  await expect(title(everyone)).toHaveText(newTitle);
  await everyone.context().close();
  expect(await succeeds(['releases', 'vendor'])).toMatch(
    new RegExp(
      `${reworded}\\s+forced: the experiment journey .*\\n\\s+experiment started on portal-click for \\d+ days at 50% of visitors, against \\S+ .*\\n\\s+experiment on portal-click ended at 50% by .+: experiment shipped: the new version converts more`,
    ),
  );
});

test('a version that breaks on a click is stopped by the guardrails, whatever it converts; the other arm never saw it', async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const current = liveVendor();
  const broken = await candidate((dist) =>
    rewritePage(
      dist,
      'vendor-page',
      (text) => `document.addEventListener("click",()=>{throw new Error("experiment broke on a click")});\n${text}`,
    ),
  );
  await succeeds(['experiment', 'vendor', 'start', broken, '--force', '--reason', 'the guardrail journey']);
  // Visitors of the new arm click the title, from the 40 networks in turn; each view's beacon goes as the next page
  // replaces it.
  const errors: string[] = [];
  const pages = await Promise.all(
    [0, 12, 25, 37, 49].map(async (place) => {
      const page = await visitor(browser, place);
      page.on('pageerror', (error) => errors.push(error.message));
      return page;
    }),
  );
  for (let view = 0; view < 80 && experiment()?.version === broken; view++) {
    const page = pages[view % pages.length]!;
    await page.goto(`${doors!.urls[view % doors!.urls.length]}/vendor`);
    await title(page).click();
  }
  await Promise.all(pages.map((page) => page.context().close()));
  expect(errors).toContain('experiment broke on a click');
  await expect.poll(experiment, { timeout: 20_000 }).toBeUndefined();
  expect(liveVendor()).toBe(current);
  expect(await succeeds(['releases', 'vendor'])).toMatch(
    new RegExp(
      `${broken}\\s+forced: .*\\n\\s+experiment started on portal-click .*\\n\\s+experiment on portal-click ended at 50% by the release watch: worse .*: errors`,
    ),
  );
  // The other arm's visitors: the current version, and no error on a click.
  const calm = await visitor(browser, 80);
  const calmErrors: string[] = [];
  calm.on('pageerror', (error) => calmErrors.push(error.message));
  await calm.goto(`${site}/vendor`);
  await title(calm).click();
  expect(calmErrors).toEqual([]);
  await calm.context().close();
});

test('pnpm experiment start, status and stop run with a local site’s settings alone, as pnpm start has them', async () => {
  test.setTimeout(90_000);
  const before = liveVendor();
  // A version published earlier and not live: the first one the journey found live.
  const other = firstLive === before ? reworded : firstLive;
  // What a developer has set for the site pnpm start runs (docs/first-release.md): where the builds and the manifest
  // are, and the site's data; none of production's secrets or its address. Through pnpm, which sets NODE_ENV.
  const localEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    REMOTES_DIR: env.REMOTES_DIR,
    REMOTES_MANIFEST: env.REMOTES_MANIFEST,
    DATA_DIR: join(deployDir, 'data'),
  };
  const pnpm = (args: string[]) =>
    spawnSync('pnpm', ['--silent', 'experiment', 'vendor', ...args], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: localEnv,
      encoding: 'utf8',
    });
  const started = pnpm(['start', other, '--force', '--reason', 'a local rehearsal']);
  expect([started.status, started.stderr]).toEqual([0, '']);
  expect(started.stdout).toContain(`vendor: experiment started: ${other} serves 50% of visitors`);
  const status = pnpm(['status']);
  expect([status.status, status.stderr]).toEqual([0, '']);
  expect(status.stdout).toMatch(/sample ratio: not checked yet/);
  const stopped = pnpm(['stop', '--reason', 'rehearsed']);
  expect([stopped.status, stopped.stderr]).toEqual([0, '']);
  expect(stopped.stdout).toContain(`every visitor has ${before} again`);
  expect(experiment()).toBeUndefined();
});

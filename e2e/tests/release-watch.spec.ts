import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReleaseWebhookEvent } from '@gift/contracts/webhooks';
import { openDoors, operatorsAlerts, startWatchedSite, webhookReceiver } from '../field-doors.ts';
import { firstDeployment, releaseCommand, rewritePage } from '../release-commands.ts';
import { expect, test } from './support.ts';

/**
 * The release watch as a team meets it: a version of legal whose privacy page throws on every click passes as far as
 * a promote goes (nobody clicks in the checks), visitors click, and within the watch window the site puts the
 * previous version back by itself, says why in `pnpm releases`, and tells WEBHOOK_URL with a signed event.
 */
const sitePort = 4331;
const site = `http://127.0.0.1:${sitePort}`;
const webhookSecret = 'webhook-secret-for-the-watch-journey-0123456789';
const legalDist = fileURLToPath(new URL('../../legal/dist/', import.meta.url));
let deployDir = '';
let env: NodeJS.ProcessEnv = {};
let server: ChildProcess | undefined;
let receiver: Awaited<ReturnType<typeof webhookReceiver<ReleaseWebhookEvent>>> | undefined;
let doors: Awaited<ReturnType<typeof openDoors>> | undefined;
let alerts: Awaited<ReturnType<typeof operatorsAlerts>> | undefined;

async function succeeds(args: string[]) {
  const { code, printed } = await releaseCommand(args, env);
  expect(code, `${args.join(' ')}: ${printed}`).toBe(0);
  return printed;
}

const liveLegal = () =>
  /\/legal\/([^/]+)\//.exec(
    (JSON.parse(readFileSync(env.REMOTES_MANIFEST!, 'utf8')) as Record<string, string>).legal!,
  )![1]!;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  receiver = await webhookReceiver<ReleaseWebhookEvent>(webhookSecret);
  ({ deployDir, env } = await firstDeployment('watch-journey'));
  server = await startWatchedSite({ deployDir, env }, sitePort, { url: receiver.url, secret: webhookSecret });
  alerts = await operatorsAlerts(sitePort);
});

test.afterAll(async () => {
  doors?.close();
  await alerts?.stop();
  server?.kill('SIGTERM');
  await receiver?.close();
  rmSync(deployDir, { recursive: true, force: true });
});

test('a version whose page throws on a click is rolled back by itself, with the reason recorded and a webhook sent', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const previous = liveLegal();
  // The real legal build, its privacy page changed to throw on every click.
  const dist = mkdtempSync(join(tmpdir(), 'legal-candidate-'));
  cpSync(legalDist, dist, { recursive: true });
  rewritePage(
    dist,
    'privacy-page',
    (code) => `document.addEventListener("click",()=>{throw new Error("privacy page broke on a click")});\n${code}`,
  );
  const published = await succeeds(['release', 'legal', '--candidate', '--from', dist]);
  rmSync(dist, { recursive: true, force: true });
  const broken = /published (\S+) as a candidate/.exec(published)![1]!;
  await succeeds(['promote', 'legal', broken, '--force', '--reason', 'the watch journey']);
  expect(liveLegal()).toBe(broken);

  // Visitors read the privacy page and click in it, then go on to the terms (another page of the same remote, by a
  // full load, as a broken client router leaves a page), from 30 networks in turn (the watch decides with views from
  // 20 networks, at most five a network). Each view's beacon goes as the next page replaces it: after that page's
  // answer has given the remote a new ticket, so the beacon must carry its own view's.
  doors = await openDoors(sitePort, 30);
  const networks = doors.urls;
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  for (let view = 0; view < 60 && liveLegal() === broken; view++) {
    await page.goto(`${networks[view % networks.length]}/privacy`);
    await page.getByRole('heading', { level: 1 }).click();
    await page.goto(`${networks[view % networks.length]}/terms`);
  }
  await page.goto(`${site}/vendor`); // the last view's beacon goes
  expect(errors).toContain('privacy page broke on a click');

  await expect.poll(liveLegal, { timeout: 20_000 }).toBe(previous);
  const { printed } = await releaseCommand(['releases', 'legal'], env);
  expect(printed).toMatch(
    new RegExp(
      `${broken}\\s+forced: the watch journey .*\\n\\s+rolled back by the release watch: worse .*: errors \\d+\\.\\d% of \\d+ views erred \\(\\d+, from \\d+ networks\\)`,
    ),
  );
  expect(printed).toMatch(new RegExp(`\\* ${previous} .*\\(live\\)`));
  // Operators are told, and told nothing else: the watch looks every second, scraped every second.
  await expect.poll(() => alerts!.firing(), { timeout: 30_000 }).toEqual(['ReleaseRolledBack legal']);

  await expect.poll(() => receiver!.received.length, { timeout: 15_000 }).toBe(1);
  expect(receiver!.received[0]!.problem).toBeUndefined();
  expect(receiver!.received[0]!.event).toMatchObject({
    type: 'release.rolled_back',
    release: { remote: 'legal', from: broken, to: previous, reason: expect.stringMatching(/^worse .*: errors /) },
  });

  // The next visitor gets the previous version: no click breaks the page now.
  errors.length = 0;
  await page.goto(`${site}/privacy`);
  await page.getByRole('heading', { level: 1 }).click();
  expect(errors).toEqual([]);
});

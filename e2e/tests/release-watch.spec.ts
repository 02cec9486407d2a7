import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remotes } from '@gift/federation';
import { signatureHeader, signatureProblem, type ReleaseWebhookEvent } from '@gift/contracts/webhooks';
import { privacyChunk, releaseCommand, startServer } from '../release-commands.ts';
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
let receiver: Server | undefined;
const received: { event: ReleaseWebhookEvent; problem: string | undefined }[] = [];
let doors: Server[] = [];

/**
 * Front doors to the site, one per client network, as a proxy in front would be (the server trusts one hop): each
 * forwards to the site server saying the client came from 10.<n>.0.1. A page opened through a door sends its beacon
 * to the same origin, so its view and its report come from that network (Chromium sends a beacon of a page being
 * replaced without the page's extra headers, so setting X-Forwarded-For in the browser cannot do this).
 */
async function openDoors(networks: number): Promise<string[]> {
  doors = Array.from({ length: networks }, (_, index) =>
    createServer((request, response) => {
      const upstream = forward(
        {
          host: '127.0.0.1',
          port: sitePort,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, 'x-forwarded-for': `10.${index + 1}.0.1` },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    }),
  );
  await Promise.all(doors.map((door) => new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve))));
  return doors.map((door) => `http://127.0.0.1:${(door.address() as AddressInfo).port}`);
}

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
  deployDir = mkdtempSync(join(tmpdir(), 'watch-journey-'));
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const header = request.headers[signatureHeader];
      received.push({
        event: JSON.parse(body) as ReleaseWebhookEvent,
        problem: signatureProblem(body, typeof header === 'string' ? header : undefined, [webhookSecret]),
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  env = {
    ...process.env,
    REMOTES_DIR: join(deployDir, 'remotes'),
    REMOTES_MANIFEST: join(deployDir, 'remotes.json'),
  };
  await Promise.all(
    Object.values(remotes).map(({ folder }) =>
      succeeds(['release', folder, '--prebuilt', '--force', '--reason', 'first deployment']),
    ),
  );
  server = await startServer(
    'src/main.ts',
    {
      ...env,
      PORT: String(sitePort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: join(deployDir, 'data'),
      PUBLIC_SITE_URL: site,
      RUM_LIMIT_PER_IP: '100000',
      OUTBOX_INTERVAL_MS: '200',
      WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      WEBHOOK_SECRET: webhookSecret,
      RELEASE_WATCH_MINUTES: '10',
      RELEASE_WATCH_INTERVAL_MS: '1000',
      // One proxy in front, as behind nginx (the journey's front doors): a visitor's network is the address it names.
      TRUST_PROXY: '1',
    },
    `${site}/remotes.json`,
  );
});

test.afterAll(async () => {
  for (const door of doors) {
    door.closeAllConnections();
    door.close();
  }
  server?.kill('SIGTERM');
  await new Promise((resolve) => receiver?.close(resolve));
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
  const chunk = privacyChunk(dist);
  writeFileSync(
    chunk,
    `document.addEventListener("click",()=>{throw new Error("privacy page broke on a click")});\n${readFileSync(chunk, 'utf8')}`,
  );
  rmSync(`${chunk}.br`, { force: true });
  const published = await succeeds(['release', 'legal', '--candidate', '--from', dist]);
  rmSync(dist, { recursive: true, force: true });
  const broken = /published (\S+) as a candidate/.exec(published)![1]!;
  await succeeds(['promote', 'legal', broken, '--force', '--reason', 'the watch journey']);
  expect(liveLegal()).toBe(broken);

  // Visitors read the privacy page and click in it, from 25 networks in turn (the watch decides with views from 20
  // networks, at most five a network); each view's beacon goes as the next page replaces it.
  const networks = await openDoors(25);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  for (let view = 0; view < 60 && liveLegal() === broken; view++) {
    await page.goto(`${networks[view % networks.length]}/privacy`);
    await page.getByRole('heading', { level: 1 }).click();
  }
  await page.goto(`${site}/vendor`); // the last view's beacon goes
  expect(errors).toContain('privacy page broke on a click');

  await expect.poll(liveLegal, { timeout: 20_000 }).toBe(previous);
  const { printed } = await releaseCommand(['releases', 'legal'], env);
  expect(printed).toMatch(
    new RegExp(
      `${broken}\\s+forced: the watch journey .*; rolled back by the release watch: error rate \\d+\\.\\d% of views \\(\\d+ of \\d+ views with an error\\)`,
    ),
  );
  expect(printed).toMatch(new RegExp(`\\* ${previous} .*\\(live\\)`));

  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
  expect(received[0]!.problem).toBeUndefined();
  expect(received[0]!.event).toMatchObject({
    type: 'release.rolled_back',
    release: { remote: 'legal', from: broken, to: previous, reason: expect.stringMatching(/^error rate/) },
  });

  // The next visitor gets the previous version: no click breaks the page now.
  errors.length = 0;
  await page.goto(`${site}/privacy`);
  await page.getByRole('heading', { level: 1 }).click();
  expect(errors).toEqual([]);
});

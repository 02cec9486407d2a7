import { execFileSync } from 'node:child_process';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fieldDataPath, goalPing, type GoalName } from '@gift/contracts/field-data';
import { signatureHeader, signatureProblem } from '@gift/contracts/webhooks';
import { newVisitorId, testIdOf, visitorAt as placedVisitor, type Rollout } from 'site-server/cohorts';
import { rulesForChecks, startPrometheus, stopAll } from 'api/cluster/topology';
import { startServer } from './release-commands.ts';

/**
 * Front doors to a site on `sitePort`, one per client network, as a proxy in front would be (the server trusts one
 * hop): each forwards to the site server saying the client came from 10.<n>.0.1. A page opened through a door sends
 * its beacon to the same origin, so its view and its report come from that network (Chromium sends a beacon of a page
 * being replaced without the page's extra headers, so setting X-Forwarded-For in the browser cannot do this).
 */
export async function openDoors(sitePort: number, networks: number) {
  const doors: Server[] = Array.from({ length: networks }, (_, index) =>
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
  return {
    urls: doors.map((door) => `http://127.0.0.1:${(door.address() as AddressInfo).port}`),
    close() {
      for (const door of doors) {
        door.closeAllConnections();
        door.close();
      }
    },
  };
}

/** WEBHOOK_URL for a journey: every delivery's event, and what is wrong with its signature (undefined: nothing). */
export async function webhookReceiver<Event>(secret: string) {
  const received: { event: Event; problem: string | undefined }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const header = request.headers[signatureHeader];
      received.push({
        event: JSON.parse(body) as Event,
        problem: signatureProblem(body, typeof header === 'string' ? header : undefined, [secret]),
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * The site server of a field-data journey on `port`, with `deployment`'s deploy folder: its watch looking every second,
 * its webhooks to `webhook` signed with `secret`, one proxy in front (the journey's front doors: a visitor's network is
 * the address a door names), and room for every beacon of the journey from one address.
 */
export function startWatchedSite(
  deployment: { deployDir: string; env: NodeJS.ProcessEnv },
  port: number,
  webhook: { url: string; secret: string },
) {
  const site = `http://127.0.0.1:${port}`;
  return startServer(
    'src/main.ts',
    {
      ...deployment.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: join(deployment.deployDir, 'data'),
      PUBLIC_SITE_URL: site,
      RUM_LIMIT_PER_IP: '100000',
      OUTBOX_INTERVAL_MS: '200',
      WEBHOOK_URL: webhook.url,
      WEBHOOK_SECRET: webhook.secret,
      RELEASE_WATCH_MINUTES: '10',
      RELEASE_WATCH_INTERVAL_MS: '1000',
      // "Worse" holds for 3 s before an abort (10 minutes in production): the journey's canary errs on every click.
      RELEASE_WATCH_CONFIRM_MINUTES: '0.05',
      TRUST_PROXY: '1',
    },
    `${site}/remotes.json`,
  );
}

/**
 * One view of `path` as a visitor's browser makes it through `door`, without the browser: the page is fetched with
 * a browser's user agent (a script's is a crawler's, which gets no ticket) and the visitor's cohort cookie (its id) (its HTML is returned, to check which version it is), and the field-data beacon the
 * page's collector would send goes back through the same door with the view's ticket, clean (its vitals only).
 * Hundreds of such views take seconds where Chromium takes minutes; a browser's own beacons are the field-data
 * journeys'. With `goal`, the view reached it: the ping a browser sends as the visitor follows the goal's link
 * (`<a ping>`), with the view's ticket.
 */
/** What a browser says it is: the views made without one say it too. */
export const browserAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

/**
 * The id of a visitor placed at `place` (0-99) in the rollout or experiment of `remote` under way, as the rollouts
 * file beside the manifest has it: below the share, the new version's arm. Any new id when none is under way.
 */
export function visitorAt(rolloutsFile: string, remote: string, place: number): string {
  const rollouts = existsSync(rolloutsFile)
    ? (JSON.parse(readFileSync(rolloutsFile, 'utf8')) as Record<string, Rollout | undefined>)
    : {};
  const rollout = rollouts[remote];
  return rollout ? placedVisitor(testIdOf(rollout), place) : newVisitorId();
}

export async function beaconedView(
  door: string,
  path: string,
  cohort: string,
  report: { remote: string; version: string },
  { goal }: { goal?: GoalName } = {},
) {
  const page = await fetch(`${door}${path}`, { headers: { cookie: `cohort=${cohort}`, 'user-agent': browserAgent } });
  const html = await page.text();
  if (!page.ok) throw new Error(`${path}: ${page.status}`);
  const ticket = page.headers.getSetCookie().find((line) => line.startsWith(`rum_${report.remote}=`));
  if (!ticket) throw new Error(`${path} came without a view ticket of ${report.remote}`);
  const beacon = await fetch(`${door}${fieldDataPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `cohort=${cohort}; ${ticket.split(';')[0]}` },
    body: JSON.stringify({
      ...report,
      route: path,
      shell: 'journey',
      viewport: 'phone',
      view: true,
      entries: [
        { metric: 'LCP', value: 1200 },
        { metric: 'INP', value: 80 },
      ],
    }),
  });
  await beacon.arrayBuffer();
  if (beacon.status !== 204) throw new Error(`the beacon of ${path} was answered ${beacon.status}`);
  if (goal) {
    const ping = await fetch(`${door}${goalPing(goal)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/ping', 'ping-from': `${door}${path}`, cookie: ticket.split(';')[0]! },
      body: 'PING',
    });
    await ping.arrayBuffer();
    if (ping.status !== 204) throw new Error(`the ping of ${goal} on ${path} was answered ${ping.status}`);
  }
  return html;
}

/** The nonce of a view's ticket (the cookie's signed payload: remote, version, route, time, nonce). */
export const nonceOf = (ticket: string) =>
  (JSON.parse(Buffer.from(ticket.split('.')[0]!, 'base64url').toString('utf8')) as unknown[])[4] as string;

/**
 * What the API keeps in `dataDir`'s SQLite file of the views with these tickets' nonces: each view's row (`counted` 1
 * once its counting beacon came) and one row per goal it reached (`counted` 0).
 */
export function ticketRows(
  dataDir: string,
  nonces: string[],
): { ticket: string; goal: string | null; counted: number }[] {
  const script = `const db = new (require('better-sqlite3'))(process.argv[1], { readonly: true });
    const tickets = JSON.parse(process.argv[2]);
    const among = ' where ticket in (' + tickets.map(() => '?').join(',') + ')';
    console.log(JSON.stringify(db.prepare('select ticket, null as goal, counted from field_counted' + among
      + ' union all select ticket, goal, 0 as counted from field_goals' + among).all(...tickets, ...tickets)));`;
  return JSON.parse(
    execFileSync('node', ['-e', script, join(dataDir, 'requests.sqlite'), JSON.stringify(nonces)], {
      cwd: new URL('../api/', import.meta.url),
      encoding: 'utf8',
    }),
  ) as { ticket: string; goal: string | null; counted: number }[];
}

/**
 * Debian's Prometheus scraping the site on `port` every second as job `site`, with ops/prometheus's rules (the alerts'
 * `for:` made 2 s): what operators would be told of a journey. `firing()` is every alert firing now, as
 * `alertname remote` lines; `stop()` ends it.
 */
export async function operatorsAlerts(port: number) {
  const prometheus = await startPrometheus({ site: [`127.0.0.1:${port}`] }, rulesForChecks());
  return {
    firing: async () =>
      (await prometheus.query('ALERTS{alertstate="firing"}'))
        .map(({ metric }) => `${metric.alertname} ${metric.remote ?? ''}`.trim())
        .sort(),
    stop: stopAll,
  };
}

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fieldData, openMigratedDatabase, readConfig, type Db } from 'api';
import { release, type ReleaseSettings } from '../releases/release.ts';
import { browserAgent, listeningSite } from './test-road.ts';
import { newVisitorId, placeIn } from '../rollouts/cohorts.ts';
import { testIdOf } from '../ledger/rollouts.ts';
import { ledgerOf } from '../ledger/switches.ts';
import { watchReleases } from './release-watch.ts';
import { watchRollouts } from './rollout-watch.ts';

/**
 * Field data as an outsider would forge it, against a site server over real HTTP: a good release of legal under
 * watch, reports posted with curl-like requests (no page loaded, or with tickets fetched from pages), from one address,
 * one network, or many. The watch acts on views the site served, from enough networks, none dominant.
 */
const root = mkdtempSync(join(tmpdir(), 'forged-field-data-'));
const dataDir = join(root, 'data');
const settings: ReleaseSettings = {
  root,
  remotesDir: join(root, 'deployed'),
  manifestFile: join(root, 'remotes.json'),
};
const log = { warn: vi.fn(), error: vi.fn() } as unknown as FastifyBaseLogger;
let app: FastifyInstance;
let db: Db;
let site = '';
let before = '';
let candidate = '';

function writeFile(path: string, content: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

/**
 * A page of the site fetched from `address` (as the proxy in front says) by a browser, by a visitor whose cohort
 * cookie holds the id `cohort` when given: the view ticket it came with.
 */
async function ticketFrom(address: string, cohort?: string): Promise<string> {
  const response = await fetch(`${site}/privacy`, {
    headers: {
      'X-Forwarded-For': address,
      'user-agent': browserAgent,
      ...(cohort !== undefined && { cookie: `cohort=${cohort}` }),
    },
  });
  await response.arrayBuffer();
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('rum_legal='));
  if (!cookie) throw new Error('the page came without a view ticket');
  return cookie.split(';')[0]!;
}

/** The nonce a ticket cookie (`rum_legal=<payload>.<signature>`) names. */
const nonceOfCookie = (cookie: string) =>
  (JSON.parse(Buffer.from(cookie.split('=')[1]!.split('.')[0]!, 'base64url').toString('utf8')) as string[])[4]!;

/** A field-data report of a view of the candidate on /privacy, with an error or not, from `address`. */
async function report(
  address: string,
  {
    error,
    cookie,
    route = '/privacy',
    version = candidate,
  }: { error: boolean; cookie?: string; route?: string; version?: string },
) {
  const response = await fetch(`${site}/api/rum`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'X-Forwarded-For': address,
      ...(cookie && { cookie }),
    },
    body: JSON.stringify({
      route,
      remote: 'legal',
      version,
      shell: 'Bx12',
      viewport: 'phone',
      view: true,
      entries: error ? [{ error: 'TypeError: forged', count: 3 }] : [{ metric: 'INP', value: 80 }],
    }),
  });
  return response.status;
}

const watch = () => watchReleases({ settings, db, log, minutes: 15, webhooks: false });
const liveLegal = () => (JSON.parse(readFileSync(settings.manifestFile, 'utf8')) as { legal: string }).legal;

/**
 * `pnpm releases legal` as a team runs it, on this site's ledger and field data. Not a synchronous child: that would
 * stop this process's event loop, the server's and the test's keep-alive timers with it, for seconds (a request
 * then goes out on a connection the server is closing: ECONNRESET).
 */
async function releasesCommand(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/release.mjs', 'releases', 'legal'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: {
      PATH: process.env.PATH,
      REMOTES_DIR: settings.remotesDir,
      REMOTES_MANIFEST: settings.manifestFile,
      DATA_DIR: dataDir,
    },
    encoding: 'utf8',
  });
  return stdout;
}

/** The API's settings of these tests' site: behind one proxy, room for every report from one address unless said. */
const configWith = (env: Record<string, string>, budget?: number) => ({
  ...readConfig({ DATA_DIR: dataDir, RUM_LIMIT_PER_IP: '100000', TRUST_PROXY: '1', ...env }),
  requestTimeoutMs: 5_000,
  ...(budget !== undefined && { fieldDataMaxBytes: budget }),
});

/** A site server of these releases on `db`, listening. */
const siteWith = (config: ReturnType<typeof configWith>) => listeningSite(settings, db, config);

beforeAll(async () => {
  writeFile(join(root, 'shell/dist/index.html'), '<!doctype html><title>shell</title><div id="root"></div>');
  writeFile(join(root, 'pnpm-workspace.yaml'), "packages:\n  - 'legal'\n");
  const unchecked = { prebuilt: true, force: { reason: 'unit test' } };
  writeFile(join(root, 'legal/dist/remoteEntry.js'), 'export const legal = "before";');
  before = (await release(settings, 'legal', unchecked)).to;
  writeFile(join(root, 'legal/dist/remoteEntry.js'), 'export const legal = "a good copy change";');
  candidate = (await release(settings, 'legal', unchecked)).to;
  db = await openMigratedDatabase(configWith({}));
  ({ app, site } = await siteWith(configWith({})));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
  rmSync(root, { recursive: true, force: true });
});

describe('forged field data against a release under watch', { timeout: 60_000 }, () => {
  it('55 reports of errors from one address, no page loaded: no rollback, and pnpm releases says what it waits for', async () => {
    for (let i = 0; i < 55; i++) expect(await report('203.0.113.7', { error: true })).toBe(204);
    expect(await watch()).toEqual([]);
    expect(liveLegal()).toContain(candidate);
    expect(await releasesCommand()).toMatch(
      /the release watch, since .*: 55 reports from 1 network, 0 views counted from 0 networks; waiting for more visitors: counted views from 0 of 20 networks/,
    );
  });

  it('60 reports with tickets fetched from 60 addresses of one /24: no rollback, five views counted', async () => {
    for (let host = 1; host <= 60; host++) {
      const address = `198.51.100.${host}`;
      expect(await report(address, { error: true, cookie: await ticketFrom(address) })).toBe(204);
    }
    expect(await watch()).toEqual([]);
    expect(liveLegal()).toContain(candidate);
    expect(await releasesCommand()).toMatch(
      /115 reports from 2 networks, 5 views counted from 1 network; waiting for more/,
    );
  });

  it('tickets of /privacy brought with reports of /terms from 30 networks: none counted, no rollback', async () => {
    for (let network = 1; network <= 30; network++) {
      const address = `172.16.${network}.9`;
      expect(await report(address, { error: true, cookie: await ticketFrom(address), route: '/terms' })).toBe(204);
    }
    expect(await watch()).toEqual([]);
    expect(liveLegal()).toContain(candidate);
    expect(await releasesCommand()).toMatch(
      /145 reports from 32 networks, 5 views counted from 1 network; waiting for more/,
    );
  });

  it('60 clean views from 60 networks, then one erred view from one more: no rollback', async () => {
    for (let network = 1; network <= 60; network++) {
      const address = `100.64.${network}.1`;
      expect(await report(address, { error: false, cookie: await ticketFrom(address) })).toBe(204);
    }
    expect(await report('100.65.0.1', { error: true, cookie: await ticketFrom('100.65.0.1') })).toBe(204);
    expect(await watch()).toEqual([]);
    expect(liveLegal()).toContain(candidate);
  });

  it('a view reached by a client-side link gets its ticket from the site, for its own route: its report counts', async () => {
    const asked = await fetch(`${site}/rum-ticket?path=${encodeURIComponent('/terms')}`, {
      method: 'POST',
      headers: { 'X-Forwarded-For': '100.66.0.1', 'user-agent': browserAgent },
    });
    expect(asked.status).toBe(200);
    expect(asked.headers.get('cache-control')).toBe('no-store');
    const cookie = asked.headers
      .getSetCookie()
      .find((line) => line.startsWith('rum_legal='))!
      .split(';')[0]!;
    // The answer is the ticket, for the shell to keep and send with the view's beacon.
    expect(`rum_legal=${await asked.text()}`).toBe(cookie);
    expect(await report('100.66.0.1', { error: false, cookie, route: '/terms' })).toBe(204);
    const [row] = await db.selectFrom('field_counted').select('ticket').where('route', '=', '/terms').execute();
    expect(row!.ticket).toMatch(/^[\w-]{8}$/);
    // Only pages of the site are vouched for.
    for (const path of ['/no-such-page', 'https://evil.example/privacy', '']) {
      const refused = await fetch(`${site}/rum-ticket?path=${encodeURIComponent(path)}`, { method: 'POST' });
      expect(refused.status).toBe(400);
      expect(refused.headers.getSetCookie()).toEqual([]);
    }
  });

  it('a build that breaks on a click, seen from 25 networks, goes back even while one address posts 900 good reports', async () => {
    const flood = (async () => {
      for (let i = 0; i < 900; i++) {
        const cookie = i % 10 === 0 ? await ticketFrom('192.0.2.50') : undefined;
        await report('192.0.2.50', { error: false, cookie });
      }
    })();
    for (let network = 1; network <= 25; network++) {
      for (const host of [1, 2]) {
        const address = `10.${network}.0.${host}`;
        expect(await report(address, { error: true, cookie: await ticketFrom(address) })).toBe(204);
      }
    }
    await flood;
    const [rolled] = await watch();
    expect(rolled).toMatchObject({ remote: 'legal', from: candidate, to: before });
    // The flood's own ticketed views (five an hour from its network) may land before or after the erring ones.
    expect(rolled!.why).toMatch(
      /^worse \(no baseline: .*\): errors \d+\.\d% of \d+ views erred \(5\d, from 2\d networks\): at least [\d.]+% at 99\.9%, above the fixed limit of 5\.0%/,
    );
    expect(liveLegal()).toContain(before);
  }, 120_000);
});

describe('floods of what the API accepts', { timeout: 120_000 }, () => {
  const post = (url: string, address: string, type: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': type, 'X-Forwarded-For': address, ...headers },
      body,
    }).then(async (response) => (await response.arrayBuffer(), response.status));

  it('a post counts against its sender whatever its type, and one network shares a limit eight times one address', async () => {
    const limited = await siteWith(configWith({ RUM_LIMIT_PER_IP: '20', RATE_LIMIT_PER_IP: '20' }));
    const form = 'application/x-www-form-urlencoded';
    const ping = (address: string) =>
      post(`${limited.site}/api/rum/goal/portal-click`, address, form, 'x=1', {
        'ping-from': `${limited.site}/vendor`,
      });
    const pings: number[] = [];
    for (let i = 0; i < 25; i++) pings.push(await ping('203.0.113.80'));
    expect(pings.filter((status) => status === 429)).toHaveLength(5);
    // A confirmation link's token looked up by a form post: 100 a window (five times the forms'), as JSON ones are.
    const lookUps: number[] = [];
    for (let i = 0; i < 105; i++) {
      lookUps.push(await post(`${limited.site}/api/delete-account/confirmation`, '203.0.113.81', form, 'token=x'));
    }
    expect(lookUps.slice(0, 100)).not.toContain(429);
    expect(lookUps.slice(100)).toEqual([429, 429, 429, 429, 429]);
    // 170 addresses of one /24, one ping each: the network's limit (160) holds the last ten.
    const spread: number[] = [];
    for (let host = 1; host <= 170; host++) spread.push(await ping(`198.18.7.${host}`));
    expect(spread.filter((status) => status === 429)).toHaveLength(10);
    await limited.app.close();
  });

  it('a compressed body is refused before it is read, a gzip bomb too: 415 and what to do', async () => {
    const json = JSON.stringify({
      route: '/privacy',
      remote: 'legal',
      version: before,
      shell: 'x',
      viewport: 'phone',
      entries: [],
    });
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
    for (const [path, body] of [
      ['/api/rum', gzipSync(json)],
      ['/api/rum', bomb],
      ['/api/delete-account', bomb],
    ] as const) {
      const response = await fetch(`${site}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body,
      });
      expect(response.status, path).toBe(415);
      expect(await response.json()).toMatchObject({
        message: expect.stringMatching(/^Compressed request bodies are not accepted/),
      });
    }
  });

  it('5,000 reports replaying one ticket leave one view: a release erring for 30 networks is still rolled back', async () => {
    const shared = site;
    const budget = (await fieldData(db).rawBytes()) + 256 * 1024;
    let budgeted = await siteWith(configWith({}, budget));
    site = budgeted.site;
    const ticket = await ticketFrom('192.0.2.77');
    for (let sent = 0; sent < 5000; sent += 25) {
      const statuses = await Promise.all(
        Array.from({ length: 25 }, () => report('192.0.2.77', { error: false, cookie: ticket, version: before })),
      );
      expect(statuses.every((status) => status === 204)).toBe(true);
    }
    const nonce = nonceOfCookie(ticket);
    expect(await db.selectFrom('field_counted').select('ticket').where('ticket', '=', nonce).execute()).toHaveLength(1);
    // The budget is measured once a minute: a restart measures it at once.
    await budgeted.app.close();
    budgeted = await siteWith(configWith({}, budget));
    site = budgeted.site;
    writeFile(join(root, 'legal/dist/remoteEntry.js'), 'export const legal = "a build that errs";');
    const broken = (await release(settings, 'legal', { prebuilt: true, force: { reason: 'unit test' } })).to;
    for (let network = 1; network <= 30; network++) {
      const address = `100.80.${network}.1`;
      expect(await report(address, { error: true, cookie: await ticketFrom(address), version: broken })).toBe(204);
    }
    const [rolled] = await watch();
    expect(rolled).toMatchObject({ remote: 'legal', from: broken });
    await budgeted.app.close();
    site = shared;
  });
});

describe('forged field data against a staged rollout', { timeout: 120_000 }, () => {
  it('three erred views of the current version from one network do not let a canary erring for 3 of 60 networks advance', async () => {
    const current = before;
    expect(liveLegal()).toContain(current);
    writeFile(join(root, 'legal/dist/remoteEntry.js'), 'export const legal = "a canary";');
    const rollout = { stages: [5, 25, 100], stageMinutes: 1 };
    const canary = (await release(settings, 'legal', { prebuilt: true, force: { reason: 'unit test' }, rollout })).to;
    // 60 networks in each arm (a visitor in each, the canary's 5% or the others): the canary's views err on 3 of them.
    const test = testIdOf((await ledgerOf(settings).rollouts()).legal!);
    const visitorIn = (canary: boolean) => {
      for (;;) {
        const id = newVisitorId();
        if (placeIn(test, id) < 5 === canary) return id;
      }
    };
    const [canaryVisitor, currentVisitor] = [visitorIn(true), visitorIn(false)];
    for (let network = 1; network <= 60; network++) {
      const [inCanary, inCurrent] = [`100.70.${network}.1`, `100.71.${network}.1`];
      const erred = network <= 3;
      const [canaryTicket, currentTicket] = [
        await ticketFrom(inCanary, canaryVisitor),
        await ticketFrom(inCurrent, currentVisitor),
      ];
      expect(await report(inCanary, { error: erred, cookie: canaryTicket, version: canary })).toBe(204);
      expect(await report(inCurrent, { error: false, cookie: currentTicket, version: current })).toBe(204);
    }
    // One more network, in the current version's cohort, sends three erred views of it: 3 of 63 (4.8%) would make
    // the canary's 5% look no worse.
    for (let host = 1; host <= 3; host++) {
      const address = `100.72.0.${host}`;
      expect(
        await report(address, { error: true, cookie: await ticketFrom(address, currentVisitor), version: current }),
      ).toBe(204);
    }
    // Its stage is due: the watch neither advances nor aborts it, it waits for evidence.
    const due = () => new Date(Date.now() + 5 * 60_000);
    expect(await watchRollouts({ settings, db, log, webhooks: false, now: due })).toEqual([]);
    expect((await ledgerOf(settings).rollouts()).legal).toMatchObject({ version: canary, stage: 0 });
    expect(liveLegal()).toContain(current);
  });
});

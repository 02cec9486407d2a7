// The whole road as tests and `pnpm simulate:road` drive it: a site server, its releases and its watch (a test-*.ts file:
// it builds what the watch itself may not import).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { openMigratedDatabase, readConfig, seeded, type ApiConfig, type Db } from 'api';
import { ticketOfTiming } from '@gift/contracts/field-data';
import { release, type ReleaseSettings } from '../releases/release.ts';
import { createSiteServer } from '../server.ts';
import { watchReleases } from './release-watch.ts';

/**
 * `pnpm simulate:road`: the release watch's verdicts over the whole road, not the judge alone. Each run releases a
 * version of legal on a real site server (its API on SQLite, behind one proxy, the default limits), and visitors make
 * the requests a browser makes: the page (`/privacy`), whose answer gives the view its ticket (`Server-Timing`), then
 * the view's beacon with that ticket to the API's intake, from 100 networks (a view an address). First the version
 * before is visited twice from each (its baseline), then the new one, in four rounds with a look of the watch after each, as its
 * interval would. Equal versions err alike (a rate drawn in 0-2% a run); a bad one errs 10 points more.
 *
 * An adversary of 1-3 networks sends beside them anything the API accepts, all at once: one address replays one
 * ticket 2,000 times and pings a goal 500 times with a form's content type; 20 addresses of each of its networks
 * fetch a ticket each and report with it; 500 reports without a ticket. Against equal versions its reports all err (to
 * have a good release rolled back), against a bad one none do (to keep it live). A row counts the runs whose verdict
 * is wrong: a rollback of equal versions, or a bad version left live.
 */
/** What the simulated visitors' browser says it is: a script's own user agent is a crawler's to the site. */
export const browserAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

/**
 * A workspace of legal alone (or of `folders`) in a new folder, for releases of made-up builds: its settings and how to
 * write a file.
 */
export function legalWorkspace(prefix: string, folders = ['legal']) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const settings: ReleaseSettings = {
    root,
    remotesDir: join(root, 'deployed'),
    manifestFile: join(root, 'remotes.json'),
  };
  const writeFile = (path: string, content: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, content);
  };
  writeFile(
    join(root, 'shell/dist/index.html'),
    '<!doctype html><html><head><title>shell</title></head><body><div id="root"></div></body></html>',
  );
  writeFile(join(root, 'pnpm-workspace.yaml'), `packages:\n${folders.map((folder) => `  - '${folder}'\n`).join('')}`);
  return { root, settings, writeFile };
}

/** A site server of `settings`' releases with the API on `db`, listening on 127.0.0.1: it and its address. */
export async function listeningSite(settings: ReleaseSettings, db: Db, config: ApiConfig) {
  const app = await createSiteServer({
    root: settings.root,
    remotesDir: settings.remotesDir,
    manifestFile: settings.manifestFile,
    trustProxy: config.trustProxy,
    api: { db, config },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, site: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

export interface RoadRow {
  name: string;
  bad: boolean;
  adversaryNetworks: number;
  runs: number;
  /** Runs whose verdict was wrong: equal versions rolled back, or a bad version kept live. */
  wrong: number;
}

/**
 * Runs `runs` runs of each row (equal or bad versions; no adversary, or one of 1, 2, 3 networks) over `networks`
 * networks, a bad version erring `worse` more, handing each row to `onRow` as it ends.
 */
export async function simulateRoad({
  runs,
  networks = 100,
  worse = 0.1,
  rounds = 4,
  adversaries = [0, 1, 2, 3],
  onRow = () => {},
}: {
  runs: number;
  networks?: number;
  worse?: number;
  rounds?: number;
  adversaries?: number[];
  onRow?: (row: RoadRow) => void;
}): Promise<RoadRow[]> {
  const { root, settings, writeFile } = legalWorkspace('simulate-road-');
  const config = { ...readConfig({ DATA_DIR: join(root, 'data'), TRUST_PROXY: '1' }), requestTimeoutMs: 5_000 };
  const db = await openMigratedDatabase(config);
  const { app, site } = await listeningSite(settings, db, config);
  const log = { warn: () => {}, error: () => {} } as unknown as FastifyBaseLogger;

  let builds = 0;
  /** A new build of legal, released live (no checks: the watch is what is measured). */
  async function releaseBuild() {
    writeFile(join(root, 'legal/dist/remoteEntry.js'), `export const legal = ${++builds};`);
    return (await release(settings, 'legal', { prebuilt: true, force: { reason: 'simulation' } })).to;
  }

  /** The page a browser loads from `address`: the ticket its answer gives the view. */
  async function pageTicket(address: string) {
    const page = await fetch(`${site}/privacy`, {
      headers: { 'X-Forwarded-For': address, 'user-agent': browserAgent },
    });
    await page.arrayBuffer();
    return ticketOfTiming(page.headers.get('server-timing'));
  }

  /** A beacon as the collector sends it, from `address`, with `ticket` when given. */
  async function beacon(address: string, version: string, erred: boolean, ticket?: string) {
    const response = await fetch(`${site}/api/rum`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Forwarded-For': address },
      body: JSON.stringify({
        route: '/privacy',
        remote: 'legal',
        version,
        shell: 'road',
        viewport: 'phone',
        view: true,
        ...(ticket && { ticket }),
        entries: erred ? [{ error: 'TypeError: broke on a click', count: 1 }] : [{ metric: 'INP', value: 90 }],
      }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** One view of the live version by a visitor at `address`: its page, then its beacon. */
  async function view(address: string, version: string, erred: boolean) {
    await beacon(address, version, erred, await pageTicket(address));
  }

  /** Everything the adversary sends in one go, from its `count` networks, its reports erring or not. */
  async function adversary(run: number, count: number, version: string, erred: boolean) {
    const flooder = `198.18.${run % 250}.1`;
    const ticket = await pageTicket(flooder);
    const form = { 'content-type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': flooder };
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 2000; i++) sends.push(beacon(flooder, version, erred, ticket));
    for (let i = 0; i < 500; i++) {
      sends.push(
        fetch(`${site}/api/rum/goal/portal-click`, {
          method: 'POST',
          headers: { ...form, 'ping-from': `${site}/vendor` },
          body: 'x=1',
        }).then((answer) => answer.arrayBuffer()),
      );
    }
    for (let i = 0; i < 500; i++) sends.push(beacon(flooder, version, erred));
    for (let batch = 0; batch < sends.length; batch += 100) await Promise.all(sends.slice(batch, batch + 100));
    for (let network = 0; network < count; network++) {
      for (let host = 1; host <= 20; host++) await view(`198.${19 + network}.${run % 250}.${host}`, version, erred);
    }
  }

  /** One run: the wrong verdict it ended in, if any. */
  async function simulate(run: number, bad: boolean, adversaryNetworks: number): Promise<boolean> {
    const draw = seeded(run * 7919 + (bad ? 1 : 0));
    const rate = draw() * 0.02;
    const before = await releaseBuild();
    const address = (network: number, host: number) => `10.${run % 250}.${network}.${host}`;
    // The version before: two rounds of views from every network, its baseline.
    for (let network = 0; network < 2 * networks; network++) {
      await view(address(network % networks, 1 + Math.floor(network / networks)), before, draw() < rate);
    }
    const version = await releaseBuild();
    let rolledBack = false;
    for (let round = 0; round < rounds && !rolledBack; round++) {
      for (let network = 0; network < networks; network++) {
        await view(address(network, 3 + round), version, draw() < rate + (bad ? worse : 0));
      }
      if (round === 1 && adversaryNetworks) await adversary(run, adversaryNetworks, version, !bad);
      rolledBack = (await watchReleases({ settings, db, log, minutes: 60, webhooks: false })).length > 0;
    }
    return bad ? !rolledBack : rolledBack;
  }

  const rows: RoadRow[] = [];
  try {
    for (const adversaryNetworks of adversaries) {
      for (const bad of [false, true]) {
        let wrong = 0;
        for (let run = 1; run <= runs; run++) if (await simulate(run, bad, adversaryNetworks)) wrong += 1;
        const versions = bad ? `bad version (+${Math.round(worse * 100)} points of errors)` : 'equal versions';
        const against = adversaryNetworks
          ? `adversary of ${adversaryNetworks} network${adversaryNetworks > 1 ? 's' : ''}`
          : 'no adversary';
        const row = { name: `${versions}, ${against}`, bad, adversaryNetworks, runs, wrong };
        rows.push(row);
        onRow(row);
      }
    }
  } finally {
    await app.close();
    await db.destroy();
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

// An experiment over the whole road as tests and `pnpm simulate:experiment-road` drive it (a test-*.ts file: it builds
// what the site server itself may not import).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { judgeExperimentOver, openMigratedDatabase, readConfig, seeded, type Db } from 'api';
import { ticketOfTiming } from '@gift/contracts/field-data';
import { stepRollout } from '../ledger/rollout-steps.ts';
import { experimentOf, type Rollout } from '../ledger/rollouts.ts';
import { ledgerOf } from '../ledger/switches.ts';
import { release } from '../releases/release.ts';
import { browserAgent, legalWorkspace, listeningSite } from '../watch/test-road.ts';

/**
 * A report of a view of /vendor from `address`, as the shell's collector sends it, with its ticket (with `goal`: the
 * view reached it); throws unless the API answers 204.
 */
export async function vendorBeacon(
  site: string,
  address: string,
  { version, ticket, goal }: { version: string; ticket?: string; goal?: 'portal-click' },
) {
  const answer = await fetch(`${site}/api/rum`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address, 'user-agent': browserAgent },
    body: JSON.stringify({
      route: '/vendor',
      remote: 'vendor',
      version,
      shell: 'road',
      viewport: 'phone',
      view: !goal,
      ticket,
      ...(goal && { goal }),
      entries: goal ? [] : [{ metric: 'INP', value: 90 }],
    }),
  });
  await answer.arrayBuffer();
  if (answer.status !== 204) throw new Error(`the beacon was answered ${answer.status}`);
}

/**
 * `pnpm simulate:experiment-road`: experiments' decisions over the whole road, not the judge alone. Each run starts an
 * experiment on vendor on a real site server (its API on SQLite) between two builds of the same bytes, at 50%, and
 * visitors make the requests a browser makes: the page (`/vendor`) with their cohort cookie, which assigns a new
 * visitor on that answer and gives each view its ticket (`Server-Timing`); the view's beacon with that ticket; and,
 * when the view converts, its goal. Then the judge looks (`judgeExperimentOver`, as `pnpm experiment status` does),
 * once a day for 14 days, with the sample ratio check.
 *
 * Visitors come from `networks` networks (a few large, many small), each network converting at its own rate (half to
 * one and a half times the base), a first page at `firstRate`, a later one at `laterRate` (visitors who come back
 * convert more): the traffic under which the old assignment (every first page on the current version) made equal
 * builds look different. A new visitor sees a page, and another with `againChance` after each; a visitor of an
 * earlier day comes back with `backChance`. With `lift`, the new version's visitors convert that much more (a real
 * effect, in behaviour: the builds stay the same bytes).
 *
 * A day's traffic is sent in seconds, so the field data's per-hour limits would count a fraction of it: the
 * simulation's site takes RATE_LIMIT figures for a day in an hour (`maxPerNetwork` 1,000 views a network an hour,
 * 100,000 reports an address a minute); a network still weighs at most 50 views in the judge, as in production.
 */
export interface ExperimentRoadTraffic {
  newVisitorsPerDay: number;
  networks: number;
  firstRate: number;
  laterRate: number;
  againChance: number;
  backChance: number;
  /** The new version's visitors convert this much more, relatively (0.2: a fifth more). */
  lift: number;
}

export const defaultExperimentRoadTraffic: ExperimentRoadTraffic = {
  newVisitorsPerDay: 250,
  networks: 200,
  firstRate: 0.06,
  laterRate: 0.18,
  againChance: 0.3,
  backChance: 0.15,
  lift: 0,
};

export interface ExperimentRoadRow {
  name: string;
  runs: number;
  /** Runs that declared the new version better, or the current one. */
  newWins: number;
  currentWins: number;
  /** Runs whose sample ratio check found a mismatch at any look. */
  mismatches: number;
  /** The share of first views (assigned visitors) on the new version, over every run. */
  assignedShare: number;
  /** Counted views a run, median. */
  views: number;
}

const days = 14;

/** Runs `runs` runs of each traffic in `rows`, handing each row to `onRow` as it ends. */
export async function simulateExperimentRoad({
  runs,
  rows,
  onRow = () => {},
}: {
  runs: number;
  rows: { name: string; traffic: ExperimentRoadTraffic }[];
  onRow?: (row: ExperimentRoadRow) => void;
}): Promise<ExperimentRoadRow[]> {
  const { root, settings, writeFile } = legalWorkspace('simulate-experiment-road-', ['vendor']);
  const config = {
    ...readConfig({ DATA_DIR: join(root, 'data'), TRUST_PROXY: '1', RUM_LIMIT_PER_IP: '100000' }),
    requestTimeoutMs: 5_000,
  };
  const db: Db = await openMigratedDatabase(config);
  writeFile(join(root, 'vendor/dist/remoteEntry.js'), 'export const vendor = "the same bytes";');
  const releaseSame = async (experiment?: boolean) =>
    (
      await release(settings, 'vendor', {
        prebuilt: true,
        force: { reason: 'simulation' },
        ...(experiment && {
          rollout: { stages: [50, 100], stageMinutes: days * 24 * 60, experiment: { goal: 'portal-click', days } },
        }),
      })
    ).to;
  await releaseSame();
  const { app, site } = await listeningSite(settings, db, config);

  /** One view of /vendor by a visitor (its id, once it has one) from `address`: its version, id and ticket. */
  async function page(address: string, visitor: string | undefined) {
    const answer = await fetch(`${site}/vendor`, {
      headers: {
        'user-agent': browserAgent,
        'x-forwarded-for': address,
        ...(visitor && { cookie: `cohort=${visitor}` }),
      },
    });
    const html = await answer.text();
    const version = /\/vendor\/([^/"]+)\/remoteEntry\.js/.exec(html)?.[1];
    const given = /(?:^|,)\s*cohort=([\w-]+)/.exec(answer.headers.getSetCookie().join(','))?.[1];
    const ticket = ticketOfTiming(answer.headers.get('server-timing'));
    if (!version || !ticket) throw new Error(`/vendor answered ${answer.status} without a version or a ticket`);
    return { version, visitor: given ?? visitor, assigned: given !== undefined, ticket };
  }

  /** A report of the view, as the collector sends it (with `goal`: the view reached it). */
  const beacon = (address: string, version: string, ticket: string, goal?: 'portal-click') =>
    vendorBeacon(site, address, { version, ticket, goal });

  async function clearFieldData() {
    for (const table of ['field_counted', 'field_goals', 'field_views', 'field_goal_days', 'field_network_chains']) {
      await db.deleteFrom(table as 'field_counted').execute();
    }
  }

  /** One run: what the judge decided first (or nothing), whether the check fired, the arms' assigned views. */
  async function simulate(seed: number, traffic: ExperimentRoadTraffic) {
    await clearFieldData();
    const next = await releaseSame(true);
    const rollout = (await ledgerOf(settings).rollouts()).vendor as Rollout;
    const experiment = experimentOf(rollout);
    const random = seeded(seed);
    const networkRate = Array.from({ length: traffic.networks }, () => 0.5 + random());
    const returning: { network: number; host: number; visitor: string }[] = [];
    let decision: string | undefined;
    let mismatch = false;
    let [assigned, assignedNext, views] = [0, 0, 0];
    for (let day = 0; day < days; day++) {
      const today: typeof returning = [];
      const visit = async (network: number, host: number, visitor: string | undefined, first: boolean) => {
        const address = `10.${Math.floor(network / 250)}.${network % 250}.${host}`;
        const view = await page(address, visitor);
        const onNext = view.version === next;
        if (view.assigned) {
          assigned += 1;
          if (onNext) assignedNext += 1;
        }
        views += 1;
        await beacon(address, view.version, view.ticket);
        const rate =
          (first ? traffic.firstRate : traffic.laterRate) * networkRate[network]! * (onNext ? 1 + traffic.lift : 1);
        if (random() < rate) await beacon(address, view.version, view.ticket, 'portal-click');
        return view.visitor!;
      };
      // Visitors side by side, 20 at a time, as a site's visitors are (each one's pages one after the other).
      const together: Promise<unknown>[] = [];
      const meanwhile = async (visiting: Promise<unknown>) => {
        together.push(visiting);
        if (together.length >= 20) await Promise.all(together.splice(0));
      };
      for (const visitor of returning) {
        if (random() < traffic.backChance)
          await meanwhile(visit(visitor.network, visitor.host, visitor.visitor, false));
      }
      for (let n = 0; n < traffic.newVisitorsPerDay; n++) {
        // A few large networks, many small ones.
        const network = Math.floor(traffic.networks * random() ** 2);
        const host = 1 + Math.floor(random() * 250);
        await meanwhile(
          (async () => {
            let visitor = await visit(network, host, undefined, true);
            while (random() < traffic.againChance) visitor = await visit(network, host, visitor, false);
            today.push({ network, host, visitor });
          })(),
        );
      }
      await Promise.all(together);
      returning.push(...today);
      const verdict = await judgeExperimentOver(
        db,
        { ...experiment, since: experiment.since },
        { maxPerNetwork: 1000 },
      );
      mismatch ||= verdict.sampleRatio.mismatch;
      if (verdict.decision === 'new version converts more' || verdict.decision === 'current converts more') {
        decision ??= verdict.decision;
      }
    }
    await stepRollout(settings, 'vendor', 'abort', { why: 'the run is over' });
    return { decision, mismatch, assigned, assignedNext, views };
  }

  const results: ExperimentRoadRow[] = [];
  try {
    for (const [index, { name, traffic }] of rows.entries()) {
      const row: ExperimentRoadRow = {
        name,
        runs,
        newWins: 0,
        currentWins: 0,
        mismatches: 0,
        assignedShare: 0,
        views: 0,
      };
      let [assigned, assignedNext] = [0, 0];
      const viewsOfRuns: number[] = [];
      for (let run = 1; run <= runs; run++) {
        const outcome = await simulate(index * 100_003 + run, traffic);
        if (outcome.decision === 'new version converts more') row.newWins += 1;
        if (outcome.decision === 'current converts more') row.currentWins += 1;
        if (outcome.mismatch) row.mismatches += 1;
        assigned += outcome.assigned;
        assignedNext += outcome.assignedNext;
        viewsOfRuns.push(outcome.views);
      }
      row.assignedShare = assigned ? assignedNext / assigned : 0;
      row.views = viewsOfRuns.sort((a, b) => a - b)[Math.floor(viewsOfRuns.length / 2)]!;
      results.push(row);
      onRow(row);
    }
  } finally {
    await app.close();
    await db.destroy();
    rmSync(root, { recursive: true, force: true });
  }
  return results;
}

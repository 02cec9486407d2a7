// metrics/: the site server's families beside the API's and the process's (`/metrics`, api's metrics.ts).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge } from 'prom-client';
import { pageRoutes } from '@gift/content';
import { remoteNames, remotes, type RemoteName, type RemotesManifest } from '@gift/federation';
import { cheapCounter, type Metrics } from 'api';
import type { Split, Splits } from '../ledger/rollouts.ts';
import { liveVersionsOf } from '../ledger/versions.ts';
import type { ReleasesSource } from '../remotes/builds.ts';
import {
  channels,
  type BuildEvent,
  type ExperimentFigures,
  type SampleRatioEvent,
  type WatchLook,
  type WatchVerdict,
} from './events.ts';

const folders = new Set<string>(remoteNames.map((remote) => remotes[remote].folder));
const pageOwners = new Map<string, string>(pageRoutes.map((route) => [route.path, remotes[route.remote].folder]));

/**
 * The remote that owns a request, by its route pattern: a page's remote, the remote whose build a `/remotes/` file is
 * of, `api`, or `shell` for the rest (its files, the manifest, health); `none` for what matched no route.
 */
export function ownerOf(route: string | undefined, url: string): string {
  if (route === undefined) return 'none';
  const page = pageOwners.get(route);
  if (page) return page;
  if (route.startsWith('/api/')) return 'api';
  if (route.startsWith('/remotes/')) {
    const folder = url.split('/')[2] ?? '';
    return folders.has(folder) ? folder : 'none';
  }
  return 'shell';
}

/**
 * The site server's families: which version of each remote it serves and which it cannot, the rollouts it splits
 * visitors by, the pages it answered (from memory or made on demand, 304s), the release watch's verdicts and looks, and
 * the builds it fetched from the CDN or refused. Read from the server's own state when scraped, or counted as the
 * release watch and the build cache say what they did (events.ts).
 */
export function siteMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  {
    readManifest,
    readSplits,
    status,
    releaseEvents,
  }: {
    readManifest: () => Promise<RemotesManifest>;
    readSplits: () => Splits;
    status: ReleasesSource['status'];
    releaseEvents?: ReleasesSource['releaseEvents'];
  },
) {
  const registers = [metrics.registry];
  if (releaseEvents) {
    new Counter({
      name: 'site_release_events_total',
      help:
        "The release ledger's events, by remote and kind (published, passed, refused, live, rolled_back, rollout_started, " +
        'rollout_advanced, rollout_paused, rollout_resumed, rollout_aborted, ...), as this server last read PostgreSQL: ' +
        'every server says the same, take the max.',
      labelNames: ['remote', 'event'],
      registers,
      collect() {
        this.reset();
        for (const { remote, event, count } of releaseEvents())
          this.inc({ remote, event: event.replaceAll('-', '_') }, count);
      },
    });
  }
  new Gauge({
    name: 'site_live_version_unavailable',
    help: 'A remote whose live version this server cannot serve (its build not fetched or refused): 1; otherwise 0.',
    labelNames: ['remote'],
    registers,
    collect() {
      const late = (status() as { behind?: Record<string, string> }).behind ?? {};
      for (const remote of folders) this.set({ remote }, remote in late ? 1 : 0);
    },
  });
  new Gauge({
    name: 'site_releases_last_heard_timestamp_seconds',
    help: 'When this server last read the releases (Unix time), by where from (servers that follow PostgreSQL).',
    // Labelled so that a server that follows nothing has no series, rather than one that says 0.
    labelNames: ['source'],
    registers,
    collect() {
      this.reset();
      const { lastHeardMs } = status();
      if (lastHeardMs !== undefined) this.set({ source: 'postgresql' }, (Date.now() - lastHeardMs) / 1000);
    },
  });
  new Gauge({
    name: 'site_live_version_info',
    help: 'The version of each remote this server serves now: 1 for that version.',
    labelNames: ['remote', 'version'],
    registers,
    async collect() {
      this.reset();
      for (const [remote, version] of Object.entries(status().live ?? liveVersionsOf(await readManifest()))) {
        this.set({ remote, version }, 1);
      }
    },
  });
  const eachSplit = (set: (labels: { remote: string; version: string }, split: Split) => void) => {
    for (const [remote, split] of Object.entries(readSplits())) {
      if (split) set({ remote: remotes[remote as RemoteName]?.folder ?? remote, version: split.version }, split);
    }
  };
  new Gauge({
    name: 'site_rollout_share_ratio',
    help: 'The share of visitors a rollout serves its new version to, from 0 to 1, by remote and version.',
    labelNames: ['remote', 'version'],
    registers,
    collect() {
      this.reset();
      eachSplit((labels, split) => this.set(labels, split.share / 100));
    },
  });
  new Gauge({
    name: 'site_rollout_stage',
    help: 'The stage (from 1) of each rollout under way, by remote and the version rolled out.',
    labelNames: ['remote', 'version'],
    registers,
    collect() {
      this.reset();
      eachSplit((labels, split) => this.set(labels, split.stage));
    },
  });

  /**
   * What the watch said of each remote at its last look, for the remotes whose rollout or experiment is still under
   * way: a remote whose test is over is forgotten (its series end).
   */
  const underWay = <T>(said: Map<string, T>, each: (remote: string, value: T) => void) => {
    const under = new Set<string>();
    eachSplit(({ remote }) => under.add(remote));
    for (const [remote, value] of said) {
      if (under.has(remote)) each(remote, value);
      else said.delete(remote);
    }
  };

  // The watch's last check of each test's arms.
  const ratios = new Map<string, boolean>();
  new Gauge({
    name: 'site_rollout_sample_ratio_mismatch',
    help:
      "1 when a rollout's or experiment's arms are not the sizes its split says (the watch's sample ratio check, " +
      'p < 0.001 valid at every look): it is held; 0 when they match. By remote.',
    labelNames: ['remote'],
    registers,
    collect() {
      this.reset();
      underWay(ratios, (remote, mismatch) => this.set({ remote }, mismatch ? 1 : 0));
    },
  });

  // An experiment's figures at the watch's last look, by arm (current, next).
  const experiments = new Map<string, ExperimentFigures>();
  new Gauge({
    name: 'site_experiment_views',
    help: "An experiment's counted views over its days so far, by remote and arm (current, next), at the watch's last look.",
    labelNames: ['remote', 'arm'],
    registers,
    collect() {
      this.reset();
      underWay(experiments, (remote, { current, next }) => {
        this.set({ remote, arm: 'current' }, current.views);
        this.set({ remote, arm: 'next' }, next.views);
      });
    },
  });
  new Gauge({
    name: 'site_experiment_conversions',
    help: "An experiment's views that reached its goal, by remote, arm (current, next) and goal, at the watch's last look.",
    labelNames: ['remote', 'arm', 'goal'],
    registers,
    collect() {
      this.reset();
      underWay(experiments, (remote, { goal, current, next }) => {
        this.set({ remote, arm: 'current', goal }, current.conversions);
        this.set({ remote, arm: 'next', goal }, next.conversions);
      });
    },
  });

  const countPage = cheapCounter(
    metrics,
    'site_pages_total',
    'Pages answered, by remote, where from (memory: kept compressed; on_demand: made for this request) and status code.',
    ['remote', 'source', 'code'],
  );

  const verdicts = new Counter({
    name: 'site_release_watch_verdicts_total',
    help: "The release watch's verdicts, one per remote per look: rolled_back, aborted, advanced or waiting.",
    labelNames: ['remote', 'kind'],
    registers,
  });
  // Every remote's and kind's series from the start, at 0: an alert on `increase()` sees a process's first rollback or
  // abort (a series born at 1 has no increase to see).
  for (const remote of folders) {
    for (const kind of ['rolled_back', 'aborted', 'advanced', 'waiting']) verdicts.inc({ remote, kind }, 0);
  }
  // Made at the watch's first look: a server without a watch has neither (an unlabelled gauge would say 0, and an
  // alert would read that as a watch that has not looked since 1970).
  let looks: { last: Gauge; interval: Gauge } | undefined;
  const looksOf = () =>
    (looks ??= {
      last: new Gauge({
        name: 'site_release_watch_last_look_timestamp_seconds',
        help: 'When the release watch last looked at the field data (Unix time); absent until it first does.',
        registers,
      }),
      interval: new Gauge({
        name: 'site_release_watch_interval_seconds',
        help: 'How often the release watch looks; absent until it first does.',
        registers,
      }),
    });
  const fetched = new Counter({
    name: 'site_builds_fetched_total',
    help: 'Builds fetched from the CDN and checked against their release, by remote.',
    labelNames: ['remote'],
    registers,
  });
  const refused = new Counter({
    name: 'site_builds_refused_total',
    help: 'Builds refused, by remote and reason (unreachable, checksum, too_large, invalid): the version before serves.',
    labelNames: ['remote', 'reason'],
    registers,
  });

  const onBuild = (message: unknown) => {
    const event = message as BuildEvent;
    if (event.outcome === 'fetched') fetched.inc({ remote: event.remote });
    else refused.inc({ remote: event.remote, reason: event.reason });
  };
  const onVerdict = (message: unknown) => {
    const { remote, kind } = message as WatchVerdict;
    verdicts.inc({ remote, kind });
  };
  const onSampleRatio = (message: unknown) => {
    const { remote, mismatch } = message as SampleRatioEvent;
    ratios.set(remote, mismatch);
  };
  const onExperiment = (message: unknown) => {
    const figures = message as ExperimentFigures;
    experiments.set(figures.remote, figures);
  };
  const onLook = (message: unknown) => {
    const look = message as WatchLook;
    looksOf().last.set(look.at / 1000);
    looksOf().interval.set(look.intervalMs / 1000);
  };
  const heard = [
    [channels.build.name, onBuild],
    [channels.verdict.name, onVerdict],
    [channels.look.name, onLook],
    [channels.sampleRatio.name, onSampleRatio],
    [channels.experiment.name, onExperiment],
  ] as const;
  for (const [name, listener] of heard) subscribe(name, listener);
  app.addHook('onClose', async () => {
    for (const [name, listener] of heard) unsubscribe(name, listener);
  });

  return {
    /** A page answered: `memory` when sent from the kept forms (a 304 too), `on_demand` when made for this request. */
    page(remote: string, source: 'memory' | 'on_demand', statusCode: number) {
      countPage(`${remote} ${source} ${statusCode}`, () => ({ remote, source, code: String(statusCode) }));
    },
  };
}

export type SiteMetrics = ReturnType<typeof siteMetrics>;

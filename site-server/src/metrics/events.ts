import { channel } from 'node:diagnostics_channel';

/**
 * What the release watch and the build cache do, published on Node's diagnostics channels for the metrics: they run
 * beside the server rather than inside it, and need not know who listens. A channel nobody subscribes to costs a check.
 */

export type BuildEvent =
  | { remote: string; outcome: 'fetched' }
  | { remote: string; outcome: 'refused'; reason: 'unreachable' | 'checksum' | 'too_large' | 'invalid' };
export type WatchVerdict = { remote: string; kind: 'rolled_back' | 'aborted' | 'advanced' | 'waiting' };
export type WatchLook = { at: number; intervalMs: number };
export type SampleRatioEvent = { remote: string; mismatch: boolean };
/** An experiment's arms at one look: counted views and conversions to its goal, over its days so far. */
export type ExperimentFigures = {
  remote: string;
  goal: string;
  current: { views: number; conversions: number };
  next: { views: number; conversions: number };
};

export const channels = {
  build: channel('gift.site.build'),
  verdict: channel('gift.site.watch.verdict'),
  look: channel('gift.site.watch.look'),
  sampleRatio: channel('gift.site.watch.sample-ratio'),
  experiment: channel('gift.site.watch.experiment'),
};

const publisher =
  <Event>(named: ReturnType<typeof channel>) =>
  (event: Event) => {
    if (named.hasSubscribers) named.publish(event);
  };

export const siteEvents = {
  /** A build fetched from the CDN and checked, or refused (the version before keeps serving). */
  build: publisher<BuildEvent>(channels.build),
  /** What one look of the release watch decided for one remote under watch or in a rollout. */
  verdict: publisher<WatchVerdict>(channels.verdict),
  /** A look of the release watch that read what it needed (none while the database is away). */
  look: publisher<WatchLook>(channels.look),
  /** The sample ratio check of a rollout's or experiment's arms at one look of the watch. */
  sampleRatio: publisher<SampleRatioEvent>(channels.sampleRatio),
  /** An experiment's figures at one look of the release watch. */
  experiment: publisher<ExperimentFigures>(channels.experiment),
};

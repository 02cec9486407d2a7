import {
  judge,
  currentVersion,
  defaultJudgeSettings,
  held,
  type Verdict,
  type Evidence,
  type JudgeSettings,
  type NetworkEvidence,
} from './judge.ts';

/**
 * The release judge's proof: generated traffic through the same `judge` the watch calls, seeded so that a run
 * repeats. A run is a staged rollout (or a promote under watch): visitors from a population of networks, some heavy,
 * each network counted for at most `maxPerNetwork` views of a version an hour as the API counts them; the watch looks
 * every `lookMinutes`; a stage advances when its time has run and the judge says "keep", and is aborted at once when
 * it says "roll back". An adversary holds k networks of its own, fetches tickets as any visitor does, and sends at its
 * networks' caps, to whichever cohort, erring or clean, suits it best: its effect is the runs whose outcome differs
 * from the same traffic without it.
 */

/** mulberry32: a small seeded generator, enough for traffic. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

/** A standard normal draw (Box-Muller). */
const gaussian = (random: Random) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/** How the adversary plays: which cohort its views go to, and whether they err (and are slow) or are clean (and fast). */
export type Strategy = 'erring canary' | 'clean canary' | 'erring current' | 'clean current';
export const strategies: Strategy[] = ['erring canary', 'clean canary', 'erring current', 'clean current'];

export interface Traffic {
  /** Views of the remote an hour, both cohorts together. */
  viewsPerHour: number;
  /** Both versions' error rate of views, drawn per run between these. */
  errorRate: [number, number];
  /** Added to the canary's error rate (0.03: three percentage points). */
  canaryExtraErrors: number;
  /** The canary's INP and LCP, as a multiple of the current version's. */
  canarySlower: number;
}

export interface Plan {
  kind: 'rollout' | 'promote';
  /** A rollout's shares; a promote is 100 at once, judged against `baselineHours` of the version before. */
  stages: number[];
  stageMinutes: number;
  /** A promote's watch (RELEASE_WATCH_MINUTES). */
  watchMinutes: number;
  baselineHours: number;
  lookMinutes: number;
  /** A rollout left waiting this long in all ends "waiting". */
  maxHours: number;
  maxPerNetwork: number;
}

export const defaultPlan: Plan = {
  kind: 'rollout',
  stages: [5, 25, 100],
  stageMinutes: 960,
  watchMinutes: 15,
  baselineHours: 6,
  lookMinutes: 10,
  maxHours: 96,
  maxPerNetwork: 5,
};

export const defaultTraffic: Traffic = {
  viewsPerHour: 1000,
  errorRate: [0, 0.02],
  canaryExtraErrors: 0,
  canarySlower: 1,
};

/** Where a run ended: the step and the stage, and when the first stage was advanced (minutes after it was due). */
export interface Outcome {
  end: 'aborted' | 'completed' | 'waiting' | 'rolled back' | 'kept';
  stage: number;
  /** Counted views and networks of the canary when it ended (an abort's evidence). */
  views: number;
  networks: number;
  /** For each stage advanced, whether it advanced at the first look once due. */
  onTime: boolean[];
}

export const networkCount = 40_000;

/**
 * Networks by weight: a few heavy (a mobile carrier's address pool, an office), most light: Zipf's law with s = 0.9
 * over 40,000 networks, so the heaviest sends about 8% of views and is capped.
 */
const cumulative = (() => {
  const weights = new Float64Array(networkCount);
  let sum = 0;
  for (let i = 0; i < networkCount; i += 1) sum += weights[i] = 1 / (i + 1) ** 0.9;
  let running = 0;
  return weights.map((weight) => (running += weight / sum));
})();

export function pickNetwork(random: Random) {
  const target = random();
  let [low, high] = [0, networkCount - 1];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (cumulative[mid]! < target) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Numbers kept sorted ascending as they come (a binary search, then one move of those above). */
export class SortedValues {
  private values = new Float64Array(256);
  private count = 0;

  insert(value: number) {
    if (this.count === this.values.length) {
      const larger = new Float64Array(this.values.length * 2);
      larger.set(this.values);
      this.values = larger;
    }
    let [low, high] = [0, this.count];
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.values[mid]! <= value) low = mid + 1;
      else high = mid;
    }
    this.values.copyWithin(low + 1, low, this.count);
    this.values[low] = value;
    this.count += 1;
  }

  /** The values so far, sorted (a view: read it before the next insert). */
  get sorted() {
    return this.values.subarray(0, this.count);
  }
}

/**
 * One cohort's counted views over a window, per network, as the API's counting gives them: views capped per network
 * and hour, and each vital's first value of the network (one draw from every network, however many views it had).
 */
class Cohort {
  private networks = new Map<number, NetworkEvidence>();
  private hourly = new Map<number, number>();
  private inp = new SortedValues();
  private lcp = new SortedValues();
  views = 0;
  constructor(private readonly cap: number) {}

  add(network: number, hour: number, erred: boolean, inp: number | undefined, lcp: number | undefined) {
    const slot = network * 10_000 + hour;
    const taken = this.hourly.get(slot) ?? 0;
    if (taken >= this.cap) return;
    this.hourly.set(slot, taken + 1);
    let entry = this.networks.get(network);
    if (!entry) this.networks.set(network, (entry = { views: 0, erred: 0 }));
    entry.views += 1;
    this.views += 1;
    if (erred) entry.erred += 1;
    if (inp !== undefined && entry.inp === undefined) this.inp.insert((entry.inp = inp));
    if (lcp !== undefined && entry.lcp === undefined) this.lcp.insert((entry.lcp = lcp));
  }

  evidence(): Evidence {
    return Object.assign([...this.networks.values()], { sorted: { inp: this.inp.sorted, lcp: this.lcp.sorted } });
  }

  get size() {
    return this.networks.size;
  }
}

export interface Adversary {
  networks: number;
  strategy: Strategy;
}

/**
 * One run: the same `seed` gives the same visitors with or without `adversary`, so that the two outcomes can be
 * compared. Visitors arrive evenly, each from a network drawn by weight, into the canary by the stage's share.
 */
export function simulateRun(
  seed: number,
  traffic: Traffic = defaultTraffic,
  plan: Plan = defaultPlan,
  settings: JudgeSettings = defaultJudgeSettings,
  adversary?: Adversary,
): Outcome {
  const random = seeded(seed);
  const [low, high] = traffic.errorRate;
  const baseRate = low + (high - low) * random();
  const canaryRate = Math.min(1, baseRate + traffic.canaryExtraErrors);
  // INP where the visitor interacted (about half the views), LCP nearly always; long-tailed (log-normal).
  const inpOf = (slower: number) =>
    random() < 0.5 ? Math.round(slower * 120 * Math.exp(0.9 * gaussian(random))) : undefined;
  const lcpOf = (slower: number) =>
    random() < 0.95 ? Math.round(slower * 1800 * Math.exp(0.5 * gaussian(random))) : undefined;
  const minutesPerView = 60 / traffic.viewsPerHour;
  const adversaryViewsPerHour = adversary ? adversary.networks * plan.maxPerNetwork : 0;
  const adversaryEvery = adversaryViewsPerHour ? 60 / adversaryViewsPerHour : Infinity;
  const erringAdversary = adversary?.strategy.startsWith('erring') ?? false;
  const adversaryOnCanary = adversary?.strategy.endsWith('canary') ?? false;

  let minute = 0;
  let nextAdversary = adversary ? 0 : Infinity;
  let adversaryTurn = 0;
  /** Visitors (and the adversary's views) of the next `minutes`, into `cohortOf`'s choice. */
  const visit = (minutes: number, share: number, canary: Cohort | undefined, current: Cohort) => {
    const until = minute + minutes;
    for (; minute < until; minute += minutesPerView) {
      while (nextAdversary <= minute) {
        const network = networkCount + (adversaryTurn % adversary!.networks);
        adversaryTurn += 1;
        const into = adversaryOnCanary ? canary : current;
        into?.add(
          network,
          Math.floor(nextAdversary / 60),
          erringAdversary,
          erringAdversary ? 60_000 : 8,
          erringAdversary ? 60_000 : 300,
        );
        nextAdversary += adversaryEvery;
      }
      const hour = Math.floor(minute / 60);
      const network = pickNetwork(random);
      const inCanary = canary !== undefined && random() * 100 < share;
      const slower = inCanary ? traffic.canarySlower : 1;
      (inCanary ? canary : current).add(
        network,
        hour,
        random() < (inCanary ? canaryRate : baseRate),
        inpOf(slower),
        lcpOf(slower),
      );
    }
  };

  if (plan.kind === 'promote') {
    const before = new Cohort(plan.maxPerNetwork);
    visit(plan.baselineHours * 60, 0, undefined, before);
    const baseline = before.evidence();
    const next = new Cohort(plan.maxPerNetwork);
    // After the promote everyone has the new version: the adversary's views go to it whatever it plays.
    const onNext = (minutes: number) => visit(minutes, 100, next, next);
    for (let watched = 0; watched < plan.watchMinutes;) {
      const step = Math.min(plan.lookMinutes, plan.watchMinutes - watched);
      onNext(step);
      watched += step;
      if (judge(next.evidence(), baseline, settings).verdict === 'roll back') {
        return { end: 'rolled back', stage: 0, views: next.views, networks: next.size, onTime: [] };
      }
    }
    return { end: 'kept', stage: 0, views: next.views, networks: next.size, onTime: [] };
  }

  const onTime: boolean[] = [];
  for (let stage = 0; stage < plan.stages.length - 1;) {
    const canary = new Cohort(plan.maxPerNetwork);
    const current = new Cohort(plan.maxPerNetwork);
    const dueAt = minute + plan.stageMinutes;
    let advanced = false;
    // The verdicts of the stage's looks: "worse" must hold (`held`), as the figures stood confirmMinutes earlier,
    // that is `confirmLooks` looks before (the watch judges the figures as of then again).
    const verdicts: Verdict[] = [];
    const confirmLooks = Math.round(settings.confirmMinutes / plan.lookMinutes);
    while (minute < plan.maxHours * 60) {
      visit(plan.lookMinutes, plan.stages[stage]!, canary, current);
      const now = judge(canary.evidence(), current.evidence(), settings, currentVersion);
      verdicts.push(now);
      const verdict = held(now, verdicts[verdicts.length - 1 - confirmLooks], settings);
      if (verdict.verdict === 'roll back') {
        return { end: 'aborted', stage, views: canary.views, networks: canary.size, onTime };
      }
      if (verdict.verdict === 'keep' && minute >= dueAt - 1e-9) {
        onTime.push(minute < dueAt + plan.lookMinutes - 1e-9);
        advanced = true;
        break;
      }
    }
    if (!advanced) return { end: 'waiting', stage, views: canary.views, networks: canary.size, onTime };
    stage += 1;
  }
  return { end: 'completed', stage: plan.stages.length - 1, views: 0, networks: 0, onTime };
}

const sameOutcome = (a: Outcome, b: Outcome) => a.end === b.end && a.stage === b.stage;

export const medianOf = (values: number[]) => {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1]!;
};

export interface Row {
  row: string;
  runs: number;
  /** The share of runs that ended each way. */
  ends: Partial<Record<Outcome['end'], number>>;
  /** Runs whose outcome an adversary changed (any of its strategies), and by which. */
  changed?: number;
  changedBy?: Partial<Record<Strategy, number>>;
  /** Each change: the run's seed, the way the adversary played, and the two outcomes ("aborted at stage 1"). */
  changes?: Change[];
  /** Of runs aborted or rolled back: their seeds (to run one again), the median counted views and networks then. */
  stoppedSeeds?: number[];
  medianViews?: number;
  medianNetworks?: number;
  /** Runs whose first stage advanced at the first look once due. */
  firstStageOnTime?: number;
}

export interface Change {
  seed: number;
  strategy: Strategy;
  without: string;
  with: string;
}

const described = (outcome: Outcome) => `${outcome.end} at stage ${outcome.stage + 1}`;

/** Adds `by` to the count of `key`. */
function addTo<K extends string>(counts: Partial<Record<K, number>>, key: K, by = 1) {
  counts[key] = (counts[key] ?? 0) + by;
}

/** What runs of a row came to, before they are summed up: tallies of parts of a row (seed ranges) add up. */
export interface Tally {
  runs: number;
  ends: Row['ends'];
  changed: number;
  changedBy: Partial<Record<Strategy, number>>;
  changes: Change[];
  /** Of runs aborted or rolled back: the seed, and the canary's counted views and networks then. */
  stopped: { seed: number; views: number; networks: number }[];
  firstOnTime: number;
}

/**
 * Runs `seed`, `seed + 1`, ... `seed + runs - 1` of `traffic` under `plan`, each also played by an adversary of
 * `adversaryNetworks` networks in every way it can play when that is given, and how they ended.
 */
export function tallyRuns(
  runs: number,
  traffic: Traffic,
  plan: Plan,
  settings: JudgeSettings = defaultJudgeSettings,
  { seed = 1, adversaryNetworks }: { seed?: number; adversaryNetworks?: number } = {},
): Tally {
  const tally: Tally = { runs, ends: {}, changed: 0, changedBy: {}, changes: [], stopped: [], firstOnTime: 0 };
  for (let run = 0; run < runs; run += 1) {
    const outcome = simulateRun(seed + run, traffic, plan, settings);
    addTo(tally.ends, outcome.end);
    if (outcome.end === 'aborted' || outcome.end === 'rolled back') {
      tally.stopped.push({ seed: seed + run, views: outcome.views, networks: outcome.networks });
    }
    if (outcome.onTime[0]) tally.firstOnTime += 1;
    if (!adversaryNetworks) continue;
    let any = false;
    for (const strategy of strategies) {
      const attacked = simulateRun(seed + run, traffic, plan, settings, { networks: adversaryNetworks, strategy });
      if (!sameOutcome(outcome, attacked)) {
        addTo(tally.changedBy, strategy);
        tally.changes.push({ seed: seed + run, strategy, without: described(outcome), with: described(attacked) });
        any = true;
      }
    }
    if (any) tally.changed += 1;
  }
  return tally;
}

/** A row of the table from the tallies of its runs (all of them, in any parts). */
export function rowOf(row: string, plan: Plan, tallies: Tally[], adversary: boolean): Row {
  const ends: Row['ends'] = {};
  const changedBy: Row['changedBy'] = {};
  for (const tally of tallies) {
    for (const [end, count] of Object.entries(tally.ends) as [Outcome['end'], number][]) addTo(ends, end, count);
    for (const [strategy, count] of Object.entries(tally.changedBy) as [Strategy, number][]) {
      addTo(changedBy, strategy, count);
    }
  }
  const sum = (of: (tally: Tally) => number) => tallies.reduce((total, tally) => total + of(tally), 0);
  const stopped = tallies.flatMap((tally) => tally.stopped);
  return {
    row,
    runs: sum((tally) => tally.runs),
    ends,
    ...(adversary && {
      changed: sum((tally) => tally.changed),
      changedBy,
      changes: tallies.flatMap((tally) => tally.changes).sort((a, b) => a.seed - b.seed),
    }),
    ...(stopped.length && {
      stoppedSeeds: stopped.map((outcome) => outcome.seed).sort((a, b) => a - b),
      medianViews: medianOf(stopped.map((outcome) => outcome.views)),
      medianNetworks: medianOf(stopped.map((outcome) => outcome.networks)),
    }),
    ...(plan.kind === 'rollout' && { firstStageOnTime: sum((tally) => tally.firstOnTime) }),
  };
}

/** `runs` runs of `traffic` under `plan` (seeds `seed`, `seed + 1`, ...), and how they ended. */
export function simulateRow(
  row: string,
  runs: number,
  traffic: Traffic,
  plan: Plan,
  settings: JudgeSettings = defaultJudgeSettings,
  options: { seed?: number; adversaryNetworks?: number } = {},
): Row {
  return rowOf(row, plan, [tallyRuns(runs, traffic, plan, settings, options)], options.adversaryNetworks !== undefined);
}

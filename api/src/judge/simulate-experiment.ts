import {
  defaultExperimentSettings,
  judgeExperiment,
  type ExperimentDecision,
  type ExperimentSettings,
  type NetworkConversions,
} from './experiment.ts';
import { medianOf, networkCount, pickNetwork, seeded } from './simulate.ts';

/**
 * The experiment judge's proof, on the release judge's traffic model (simulate.ts): visitors from 40,000 networks by
 * Zipf's law, each network counted for at most `maxPerNetwork` views of a version an hour as the API counts them, a
 * share of them on the new version; each view converts with its arm's rate; the judge looks once a day (or as often as
 * `looksPerDay` says) and the run stops at its first decision, or at the horizon. An adversary holds k networks of
 * its own, fetches tickets as any visitor does and sends views at its networks' caps, every one converting on the new
 * version, none on the current one, or both: its effect is the runs whose decision differs from the same traffic
 * without it.
 */

export interface ExperimentTraffic {
  /** Views of the remote a day, both arms together. */
  viewsPerDay: number;
  /** The current version's conversion rate. */
  baseRate: number;
  /** The new version's rate, relative to it (0.2: a fifth more). */
  lift: number;
  /** The new version's share of visitors, in percent. */
  share: number;
}

export interface ExperimentPlan {
  days: number;
  looksPerDay: number;
  maxPerNetwork: number;
}

export const defaultExperimentTraffic: ExperimentTraffic = { viewsPerDay: 3000, baseRate: 0.04, lift: 0, share: 50 };
export const defaultExperimentPlan: ExperimentPlan = { days: 14, looksPerDay: 1, maxPerNetwork: 5 };

export type ExperimentStrategy = 'new converts' | 'current does not' | 'both';
export const experimentStrategies: ExperimentStrategy[] = ['new converts', 'current does not', 'both'];

export interface ExperimentOutcome {
  decision: ExperimentDecision;
  /** The look it was decided at, in days (a fraction with several looks a day). */
  day: number;
  /** Counted views of both arms then. */
  views: number;
}

/** An arm's counted views and conversions per network, capped per network and hour as the API counts them. */
class Arm {
  private networks = new Map<number, NetworkConversions>();
  private hourly = new Map<number, number>();
  constructor(private readonly cap: number) {}

  add(network: number, hour: number, converted: boolean) {
    const slot = network * 1024 + hour;
    const taken = this.hourly.get(slot) ?? 0;
    if (taken >= this.cap) return;
    this.hourly.set(slot, taken + 1);
    let entry = this.networks.get(network);
    if (!entry) this.networks.set(network, (entry = { views: 0, conversions: 0 }));
    entry.views += 1;
    if (converted) entry.conversions += 1;
  }

  /** A new day: the hours' counts before it are done with. */
  nextDay() {
    this.hourly.clear();
  }

  get evidence() {
    return [...this.networks.values()];
  }
}

/** One run: the same `seed` gives the same visitors with or without `adversary`. */
export function simulateExperiment(
  seed: number,
  traffic: ExperimentTraffic = defaultExperimentTraffic,
  plan: ExperimentPlan = defaultExperimentPlan,
  settings: ExperimentSettings = defaultExperimentSettings,
  adversary?: { networks: number; strategy: ExperimentStrategy },
): ExperimentOutcome {
  const random = seeded(seed);
  const nextRate = Math.min(1, traffic.baseRate * (1 + traffic.lift));
  const viewsPerLook = traffic.viewsPerDay / plan.looksPerDay;
  const hoursPerLook = 24 / plan.looksPerDay;
  const current = new Arm(plan.maxPerNetwork);
  const next = new Arm(plan.maxPerNetwork);
  for (let day = 0; day < plan.days; day += 1) {
    current.nextDay();
    next.nextDay();
    for (let look = 0; look < plan.looksPerDay; look += 1) {
      for (let view = 0; view < viewsPerLook; view += 1) {
        const hour = Math.floor((look + view / viewsPerLook) * hoursPerLook);
        const network = pickNetwork(random);
        const onNext = random() * 100 < traffic.share;
        (onNext ? next : current).add(network, hour, random() < (onNext ? nextRate : traffic.baseRate));
      }
      // Every hour of the look, each of the adversary's networks at its cap, on the arms its strategy feeds (it picks
      // its cohort cookie), without drawing from the visitors' generator.
      for (let hour = look * hoursPerLook; adversary && hour < (look + 1) * hoursPerLook; hour += 1) {
        for (let index = 0; index < adversary.networks; index += 1) {
          for (let view = 0; view < plan.maxPerNetwork; view += 1) {
            if (adversary.strategy !== 'current does not') next.add(networkCount + index, hour, true);
            if (adversary.strategy !== 'new converts') current.add(networkCount + index, hour, false);
          }
        }
      }
      const verdict = judgeExperiment({ current: current.evidence, next: next.evidence }, settings, {
        horizonReached: day === plan.days - 1 && look === plan.looksPerDay - 1,
      });
      if (verdict.decision !== 'continue') {
        return {
          decision: verdict.decision,
          day: day + (look + 1) / plan.looksPerDay,
          views: verdict.current.views + verdict.next.views,
        };
      }
    }
  }
  return { decision: 'no difference shown', day: plan.days, views: 0 };
}

export interface ExperimentRow {
  row: string;
  runs: number;
  decisions: Partial<Record<ExperimentDecision, number>>;
  /** Of runs that found a difference: the median counted views and day of the decision. */
  medianViews?: number;
  medianDay?: number;
  /** With an adversary: runs whose decision it changed (any strategy), and each change. */
  changed?: number;
  changes?: { seed: number; strategy: ExperimentStrategy; without: ExperimentDecision; with: ExperimentDecision }[];
}

/** Runs `seed` .. `seed + runs - 1`, each also under every strategy of an adversary of `adversaryNetworks`. */
export function simulateExperimentRow(
  row: string,
  runs: number,
  traffic: ExperimentTraffic = defaultExperimentTraffic,
  plan: ExperimentPlan = defaultExperimentPlan,
  settings: ExperimentSettings = defaultExperimentSettings,
  { seed = 1, adversaryNetworks }: { seed?: number; adversaryNetworks?: number } = {},
): ExperimentRow {
  const result: ExperimentRow = { row, runs, decisions: {} };
  const decided: ExperimentOutcome[] = [];
  if (adversaryNetworks) Object.assign(result, { changed: 0, changes: [] });
  for (let run = seed; run < seed + runs; run += 1) {
    const outcome = simulateExperiment(run, traffic, plan, settings);
    result.decisions[outcome.decision] = (result.decisions[outcome.decision] ?? 0) + 1;
    if (outcome.decision === 'new version converts more' || outcome.decision === 'current converts more') {
      decided.push(outcome);
    }
    if (!adversaryNetworks) continue;
    let any = false;
    for (const strategy of experimentStrategies) {
      const attacked = simulateExperiment(run, traffic, plan, settings, { networks: adversaryNetworks, strategy });
      if (attacked.decision !== outcome.decision) {
        result.changes!.push({ seed: run, strategy, without: outcome.decision, with: attacked.decision });
        any = true;
      }
    }
    if (any) result.changed! += 1;
  }
  if (decided.length) {
    result.medianViews = medianOf(decided.map((outcome) => outcome.views));
    result.medianDay = medianOf(decided.map((outcome) => outcome.day));
  }
  return result;
}

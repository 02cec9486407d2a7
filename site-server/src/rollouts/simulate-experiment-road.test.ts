import { describe, expect, it } from 'vitest';
import { defaultExperimentRoadTraffic, simulateExperimentRoad } from './test-experiment-road.ts';

/**
 * An experiment over the whole road once a row (`pnpm simulate:experiment-road` runs 40 and prints the rates): the
 * site's assignment on each page answer, its tickets, the beacons and goals through the API's intake, the judge's
 * daily looks with the sample ratio check. Builds of the same bytes: nothing declared, the check quiet, half the
 * new visitors on each arm; a new version whose visitors convert four times as much: found.
 */
describe('an experiment over the whole road', () => {
  it('finds nothing between builds of the same bytes, and finds a large real effect', async () => {
    const traffic = { ...defaultExperimentRoadTraffic, newVisitorsPerDay: 100 };
    const [same, better] = await simulateExperimentRoad({
      runs: 1,
      rows: [
        { name: 'A/A', traffic },
        { name: 'x4', traffic: { ...traffic, lift: 3 } },
      ],
    });
    expect(same).toMatchObject({ newWins: 0, currentWins: 0, mismatches: 0 });
    expect(same!.assignedShare).toBeGreaterThan(0.4);
    expect(same!.assignedShare).toBeLessThan(0.6);
    expect(better).toMatchObject({ newWins: 1, currentWins: 0, mismatches: 0 });
  }, 240_000);
});

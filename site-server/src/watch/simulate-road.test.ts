import { describe, expect, it } from 'vitest';
import { simulateRoad } from './test-road.ts';

/**
 * The whole road once a row (`pnpm simulate:road` runs 25 and prints the rates): page answers' tickets, beacons, the
 * API's intake and the watch's looks over real HTTP, with and without an adversary of 1-3 networks sending anything
 * the API accepts. Equal versions are not rolled back, a bad one is, whatever the adversary does.
 */
describe('the release watch over the whole road', () => {
  it('rolls back a version erring 10 points more, keeps an equal one, with or without an adversary', async () => {
    const rows = await simulateRoad({ runs: 1 });
    expect(rows.map((row) => [row.name, row.wrong])).toEqual(rows.map((row) => [row.name, 0]));
    expect(rows).toHaveLength(8);
  }, 240_000);
});

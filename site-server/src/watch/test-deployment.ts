import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fieldData, openMigratedDatabase, type Db } from 'api';
import type { GoalName } from '@gift/contracts/field-data';
import { release, type PromoteOptions, type ReleaseSettings } from '../releases/release.ts';

/**
 * For the watch's unit tests: a deployed legal remote with a first version live and a second released now (for
 * everyone, or in stages with `second`'s options), its field data in a SQLite file, and views to store in it.
 */
export const deployedLegal = (second: PromoteOptions = {}) => deployed('legal', second);

/** A page of each remote the tests deploy, which its views are of. */
const pageOf = { legal: '/privacy', vendor: '/vendor' } as const;

/** The same for `remote`: legal (its views on /privacy) or vendor (on /vendor, whose goal is `portal-click`). */
export async function deployed(remote: keyof typeof pageOf, second: PromoteOptions = {}) {
  const root = mkdtempSync(join(tmpdir(), 'watch-'));
  writeFileSync(join(root, 'pnpm-workspace.yaml'), `packages:\n  - '${remote}'\n`);
  mkdirSync(join(root, remote, 'dist'), { recursive: true });
  const settings: ReleaseSettings = {
    root,
    remotesDir: join(root, 'deployed'),
    manifestFile: join(root, 'remotes.json'),
  };
  const build = (text: string) => writeFileSync(join(root, remote, 'dist', 'remoteEntry.js'), text);
  const unchecked = { prebuilt: true, force: { reason: 'unit test' } };
  build('first');
  const first = (await release(settings, remote, unchecked)).to;
  build('second');
  const secondVersion = (await release(settings, remote, { ...unchecked, ...second })).to;
  const db: Db = await openMigratedDatabase({ databaseUrl: undefined, dataDir: join(root, 'data') });
  let views = 0;
  /**
   * A view the site vouched for (its own ticket), from one of 200 networks in turn (or `network`), received `at` (now
   * by default), with `errors` errors and an LCP; with `goal`, the view reached it (a second beacon, as a ping is);
   * `assigned`: its visitor was given its id on it (a new visitor).
   */
  const view = async (
    version: string,
    errors: number,
    {
      at,
      lcp,
      goal,
      network,
      assigned,
    }: { at?: Date; lcp?: number; goal?: GoalName; network?: string; assigned?: boolean } = {},
  ) => {
    views += 1;
    const report = {
      route: pageOf[remote],
      remote,
      version,
      shell: 'S',
      viewport: 'phone' as const,
      view: true,
      entries: [
        ...(errors ? [{ error: 'Boom', count: errors }] : []),
        ...(lcp ? [{ metric: 'LCP' as const, value: lcp }] : []),
      ],
      ticket: `t${String(views).padStart(7, '0')}`,
      network: network ?? `network-${views % 200}`,
      assigned,
    };
    const data = fieldData(db, at && (() => at));
    await data.store(report);
    // The goal's ping: the same ticket and network, no vitals.
    if (goal) await data.store({ ...report, view: false, entries: [], goal });
  };
  return { settings, db, first, second: secondVersion, view };
}

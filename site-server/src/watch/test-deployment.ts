import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fieldData, openMigratedDatabase, type Db } from 'api';
import { release, type PromoteOptions, type ReleaseSettings } from '../releases/release.ts';

/**
 * For the watch's unit tests: a deployed legal remote with a first version live and a second released now (for
 * everyone, or in stages with `second`'s options), its field data in a SQLite file, and views to store in it.
 */
export async function deployedLegal(second: PromoteOptions = {}) {
  const root = mkdtempSync(join(tmpdir(), 'watch-'));
  writeFileSync(join(root, 'pnpm-workspace.yaml'), "packages:\n  - 'legal'\n");
  mkdirSync(join(root, 'legal', 'dist'), { recursive: true });
  const settings: ReleaseSettings = {
    root,
    remotesDir: join(root, 'deployed'),
    manifestFile: join(root, 'remotes.json'),
  };
  const build = (text: string) => writeFileSync(join(root, 'legal', 'dist', 'remoteEntry.js'), text);
  const unchecked = { prebuilt: true, force: { reason: 'unit test' } };
  build('first');
  const first = (await release(settings, 'legal', unchecked)).to;
  build('second');
  const secondVersion = (await release(settings, 'legal', { ...unchecked, ...second })).to;
  const db: Db = await openMigratedDatabase({ databaseUrl: undefined, dataDir: join(root, 'data') });
  let views = 0;
  /**
   * A view the site vouched for (its own ticket), from one of 200 networks in turn, received `at` (now by default),
   * with `errors` errors and an LCP.
   */
  const view = (version: string, errors: number, { at, lcp }: { at?: Date; lcp?: number } = {}) => {
    views += 1;
    return fieldData(db, at && (() => at)).store({
      route: '/privacy',
      remote: 'legal',
      version,
      shell: 'S',
      viewport: 'phone',
      view: true,
      entries: [
        ...(errors ? [{ error: 'Boom', count: errors }] : []),
        ...(lcp ? [{ metric: 'LCP' as const, value: lcp }] : []),
      ],
      ticket: `t${String(views).padStart(7, '0')}`,
      network: `network-${views % 200}`,
    });
  };
  return { settings, db, first, second: secondVersion, view };
}

import { readFileSync, rmSync } from 'node:fs';
import { expect, test } from './tests/support.ts';
import { firstDeployment, publishChanged, releaseCommand } from './release-commands.ts';

/**
 * `pnpm promote` as a team meets it, for a file of journeys: a deploy folder of its own where every remote is first
 * deployed (so that files run side by side), and candidates of the legal remote made from its real build, some
 * broken the way releases break, checked in Chromium on a temporary site server before any switch.
 */
export function promoteJourney() {
  let deployDir = '';
  let env: NodeJS.ProcessEnv = {};

  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    ({ deployDir, env } = await firstDeployment('promote-journey'));
  });
  test.afterAll(() => rmSync(deployDir, { recursive: true, force: true }));

  const manifest = () => JSON.parse(readFileSync(env.REMOTES_MANIFEST!, 'utf8')) as Record<string, string>;
  const liveLegal = () => /\/legal\/([^/]+)\//.exec(manifest().legal!)![1]!;

  /** A command that must succeed; what it printed. */
  async function succeeds(args: string[]) {
    const { code, printed } = await releaseCommand(args, env);
    expect(code, `${args.join(' ')}: ${printed}`).toBe(0);
    return printed;
  }

  /** Publishes a candidate of legal: its real build, changed by `breakIt`; resolves with the version. */
  const candidate = (breakIt: (dist: string) => void = () => {}) => publishChanged('legal', env, breakIt);

  /** A promote that must be refused, leaving the manifest exactly as it was; what it printed. */
  async function refused(version: string, ...flags: string[]) {
    const before = readFileSync(env.REMOTES_MANIFEST!, 'utf8');
    const { code, printed } = await releaseCommand(['promote', 'legal', version, ...flags], env);
    expect(code, printed).toBe(1);
    expect(readFileSync(env.REMOTES_MANIFEST!, 'utf8')).toBe(before);
    expect(printed).toContain(
      `legal ${version} did not go live; the manifest is as it was (${liveLegal()} is still live)`,
    );
    return printed;
  }

  return {
    /** The environment the commands run with (the journey's own deploy folder). */
    env: () => env,
    manifest,
    liveLegal,
    succeeds,
    candidate,
    refused,
  };
}

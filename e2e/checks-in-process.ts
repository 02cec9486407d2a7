import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startSite } from 'site-server';
import { promote, RefusedRelease, type ReleaseSettings } from 'site-server/releases';
import { firstDeployment } from './release-commands.ts';
import { expect, test as base } from './tests/support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The release checks' verdicts, tested in the journeys' own process: one deploy folder (a copy of the run's first
 * deployment), one site server serving its live versions and the worker's browser, lent to every check of the worker,
 * where `pnpm promote` starts a Chromium and a live site of its own for each. What `pnpm promote` prints around the
 * verdict (exit code, the manifest as it was) has journeys of its own that run the command end to end.
 */
export const test = base.extend<
  object,
  { releases: { settings: ReleaseSettings; env: NodeJS.ProcessEnv; lent: NonNullable<PromoteLent> } }
>({
  releases: [
    async ({ browser }, use) => {
      const { deployDir, env } = await firstDeployment('checks-in-process');
      const settings: ReleaseSettings = {
        root,
        remotesDir: env.REMOTES_DIR!,
        manifestFile: env.REMOTES_MANIFEST!,
      };
      const liveSite = await startSite({ root, remotesDir: settings.remotesDir, manifestFile: settings.manifestFile });
      await use({ settings, env, lent: { browser, liveSite } });
      await liveSite.close();
      rmSync(deployDir, { recursive: true, force: true });
    },
    { scope: 'worker', timeout: 120_000 },
  ],
});
export { expect };

type PromoteLent = NonNullable<Parameters<typeof promote>[3]>['lent'];

/** The live version of `folder`, from the deployment's manifest. */
export const liveVersion = (settings: ReleaseSettings, folder: string) =>
  new RegExp(`/${folder}/([^/]+)/`).exec(readFileSync(settings.manifestFile, 'utf8'))![1]!;

/**
 * A promote of legal `version` with its checks, as `pnpm promote` runs it, with the worker's browser and live site:
 * what it logged and the refusal's message, which the command prints last. Fails unless it was refused with the
 * manifest exactly as it was.
 */
export async function refusedInProcess(
  { settings, lent }: { settings: ReleaseSettings; lent: NonNullable<PromoteLent> },
  version: string,
) {
  const before = readFileSync(settings.manifestFile, 'utf8');
  const live = liveVersion(settings, 'legal');
  const lines: string[] = [];
  const refusal = await promote(settings, 'legal', version, { lent, log: (line) => lines.push(line) }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal, lines.join('\n')).toBeInstanceOf(RefusedRelease);
  expect(readFileSync(settings.manifestFile, 'utf8')).toBe(before);
  const message = (refusal as RefusedRelease).message;
  expect(message).toContain(`legal ${version} did not go live; the manifest is as it was (${live} is still live)`);
  return `${lines.join('\n')}\n${message}`;
}

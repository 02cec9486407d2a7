import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ReleaseError,
  release,
  releases,
  remoteNamed,
  rollback,
  type ReleaseSettings,
  type Switch,
} from './release.ts';

/**
 * `pnpm release <remote> [--prebuilt]`, `pnpm rollback <remote> [version]`, `pnpm releases <remote>`, with the
 * site server's settings: REMOTES_DIR, REMOTES_MANIFEST and, for a CDN, REMOTES_BASE_URL.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
// pnpm runs this script in its package's folder; paths are meant from where the command was typed.
const typedIn = process.env.INIT_CWD ?? process.cwd();

function settings(): ReleaseSettings {
  const { REMOTES_DIR, REMOTES_MANIFEST, REMOTES_BASE_URL } = process.env;
  if (!REMOTES_DIR || !REMOTES_MANIFEST) {
    throw new ReleaseError(
      'Set REMOTES_DIR (the folder of deployed builds) and REMOTES_MANIFEST (the manifest file), as the site server has them.',
    );
  }
  const path = (value: string) => (isAbsolute(value) ? value : resolve(typedIn, value));
  return {
    root,
    remotesDir: path(REMOTES_DIR),
    manifestFile: path(REMOTES_MANIFEST),
    remotesBaseUrl: REMOTES_BASE_URL,
  };
}

function printSwitch(change: Switch) {
  console.log(`${change.remote}: ${change.from ?? '(none)'} -> ${change.to}`);
  console.log(`  manifest: ${change.entry}`);
  console.log(`  ${change.changes}`);
  if (change.missing.length) {
    console.log(`  the manifest names no build of ${change.missing.join(', ')}: their pages show "unavailable"`);
  }
}

async function main(args: string[]) {
  const [command, name, ...rest] = args;
  const remote = remoteNamed(name);
  if (command === 'release') {
    printSwitch(await release(settings(), remote, { prebuilt: rest.includes('--prebuilt') }));
  } else if (command === 'rollback') {
    printSwitch(await rollback(settings(), remote, rest[0]));
  } else if (command === 'releases') {
    const list = releases(settings(), remote);
    if (list.length === 0) console.log(`${remote} has no released version.`);
    for (const { version, live } of list) console.log(`${live ? '*' : ' '} ${version}${live ? '  (live)' : ''}`);
  } else {
    throw new ReleaseError(`Unknown command "${command}": release, rollback or releases.`);
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof ReleaseError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}

import { rmSync } from 'node:fs';
import { deployEveryRemote } from './release-commands.ts';

/**
 * Once per run: every remote published into one deploy folder, which each release journey file copies
 * (`firstDeployment`) instead of publishing the six again. Removed when the run ends.
 */
export default async function globalSetup() {
  const deployDir = await deployEveryRemote('first-deployment');
  return () => rmSync(deployDir, { recursive: true, force: true });
}

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The site server's package, where the release commands and servers run from. */
export const siteServerDir = fileURLToPath(new URL('../packages/site-server/', import.meta.url));

/**
 * A release command as a team types it (`pnpm release`, `promote`, `rollback`, `releases`, `preview-link`): its exit
 * code and everything it printed.
 */
export async function releaseCommand(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/release-cli.ts', ...args], {
    cwd: siteServerDir,
    env,
  });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, printed };
}

import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/** The types of quiet-build.mjs, for the TypeScript that imports it (site-server's `pnpm dev`). */
export function startPackageScript(
  root: string,
  folder: string,
  name: string,
  options?: { exec?: boolean },
): { child: ChildProcessWithoutNullStreams; script: string };
export function buildablePackages(root: string): string[];
export function buildQuietly(
  folders: string[],
  options: { root: string; verbose?: boolean; concurrency?: number; out?: NodeJS.WriteStream },
): Promise<boolean>;

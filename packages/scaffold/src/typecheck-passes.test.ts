import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * `pnpm typecheck` checks the workspace in one pass per set of global types (tsconfig.browser.json,
 * tsconfig.browser-node.json, tsconfig.node.json), so that the shared packages are checked once, not again by every
 * package that imports them. Each package keeps its own tsconfig.json (`pnpm --filter <package> typecheck`): every
 * file it checks must be checked by one of the passes, with at least the global types it has, or a new package or
 * folder would go unchecked in CI.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const passes = ['tsconfig.browser.json', 'tsconfig.browser-node.json', 'tsconfig.node.json'];

function program(configFile: string) {
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, join(configFile, '..'));
  return { files: new Set(parsed.fileNames), types: parsed.options.types ?? [], allowJs: parsed.options.allowJs };
}

const packages = [
  ...readdirSync(root).filter((name) => existsSync(join(root, name, 'tsconfig.json')) && name !== 'node_modules'),
  ...readdirSync(join(root, 'packages')).map((name) => `packages/${name}`),
].filter((folder) => existsSync(join(root, folder, 'tsconfig.json')));

describe("the workspace's typecheck passes", () => {
  const programs = passes.map((file) => ({ file, ...program(join(root, file)) }));

  it.each(packages)('check every file of %s with its global types', (folder) => {
    const own = program(join(root, folder, 'tsconfig.json'));
    // JavaScript checked as JavaScript (allowJs) has a pass of its own: its package's typecheck.
    if (own.allowJs) return;
    const unchecked = [...own.files].filter(
      (file) => !programs.some((pass) => pass.files.has(file) && own.types.every((type) => pass.types.includes(type))),
    );
    expect(unchecked).toEqual([]);
  });

  it("reads the passes' files as tsc does (a script outside them is no file of theirs)", () => {
    const every = new Set(programs.flatMap((pass) => [...pass.files]));
    expect(every.has(join(root, 'shell/src/main.tsx').replaceAll('\\', '/'))).toBe(true);
    expect(every.has(join(root, 'packages/scaffold/src/typecheck-passes.test.ts'))).toBe(true);
    expect(every.has(join(root, 'api/bin/rum.mjs'))).toBe(false);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedModuleConflicts, type SharedModule } from './shared-modules.ts';

const shell: SharedModule[] = [
  { name: 'react', version: '19.3.1', requiredVersion: '^19.0.0', singleton: true },
  { name: 'react-dom', version: '19.3.1', requiredVersion: '^19.0.0', singleton: true },
  { name: 'zustand', version: '5.1.0', requiredVersion: '^5.0.0', singleton: true },
];

describe('a candidate’s shared modules against the shell’s', () => {
  it('fit when the shell’s versions satisfy what the candidate asks for', () => {
    expect(sharedModuleConflicts(shell, shell)).toEqual([]);
    expect(
      sharedModuleConflicts(shell, [{ name: 'react', version: '19.0.0', requiredVersion: '^19.0.0', singleton: true }]),
    ).toEqual([]);
  });

  it('name both versions when the candidate was built against another major', () => {
    expect(
      sharedModuleConflicts(shell, [{ name: 'react', version: '18.3.1', requiredVersion: '^18.3.1', singleton: true }]),
    ).toEqual(['react: the shell provides 19.3.1, the candidate was built with 18.3.1 and requires ^18.3.1']);
    // A loose range does not hide code compiled against another major.
    expect(
      sharedModuleConflicts(shell, [{ name: 'react-dom', version: '18.3.1', requiredVersion: '*', singleton: true }]),
    ).toEqual(['react-dom: the shell provides 19.3.1, the candidate was built with 18.3.1 and requires *']);
  });

  it('refuses a range the shell’s version is outside of, and a singleton the shell does not provide', () => {
    expect(
      sharedModuleConflicts(shell, [{ name: 'zustand', version: '5.2.0', requiredVersion: '^5.2.0', singleton: true }]),
    ).toEqual(['zustand: the shell provides 5.1.0, the candidate was built with 5.2.0 and requires ^5.2.0']);
    expect(sharedModuleConflicts(shell, [{ name: 'jotai', version: '2.0.0', singleton: true }])).toEqual([
      'jotai: the candidate shares it as a singleton, the shell does not provide it',
    ]);
    expect(sharedModuleConflicts(shell, [{ name: 'lodash', version: '4.17.0' }])).toEqual([]);
  });
});

describe('a remote’s server build deployed outside the workspace', () => {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const packageDir = join(here, '..');
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'shared-modules-'));
    // A second React beside the build, as a copied or foreign deploy may carry: it must not be the one rendered with.
    mkdirSync(join(folder, 'node_modules', 'react'), { recursive: true });
    writeFileSync(join(folder, 'node_modules', 'react', 'package.json'), '{"name":"react","main":"index.js"}');
    writeFileSync(join(folder, 'node_modules', 'react', 'index.js'), 'module.exports = { copy: "beside the build" };');
    // What Vite writes for a page that imports React and bundles a CommonJS dependency that requires it.
    writeFileSync(
      join(folder, 'page.js'),
      [
        "import * as imported from 'react';",
        "import { createRequire } from 'node:module';",
        'const require = createRequire(import.meta.url);',
        'export const viaImport = imported.default ?? imported;',
        "export const viaRequire = require('react');",
        "export const jsxRuntime = require('react/jsx-runtime');",
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'probe.mjs'),
      [
        `import { createRequire } from 'node:module';`,
        `const { resolveSharedModules } = await import(${JSON.stringify(pathToFileURL(join(here, 'shared-modules.ts')).href)});`,
        'resolveSharedModules();',
        `const page = await import(${JSON.stringify(pathToFileURL(join(folder, 'page.js')).href)});`,
        `const ours = createRequire(${JSON.stringify(join(packageDir, 'package.json'))})('react');`,
        'console.log(JSON.stringify({ imported: page.viaImport === ours, required: page.viaRequire === ours,',
        "  jsx: typeof page.jsxRuntime.jsx === 'function', beside: page.viaRequire.copy ?? page.viaImport.copy ?? null }));",
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('gets this server’s React through import and require, with no NODE_PATH and a second React beside it', () => {
    // Started as an operator starts the server: plain node, a clean environment.
    const printed = execFileSync(process.execPath, ['--import', 'tsx', join(folder, 'probe.mjs')], {
      cwd: packageDir,
      env: { PATH: '/usr/bin:/bin', HOME: tmpdir() },
      encoding: 'utf8',
    });
    expect(JSON.parse(printed.trim().split('\n').pop()!)).toEqual({
      imported: true,
      required: true,
      jsx: true,
      beside: null,
    });
  });

  it('gets it even when NODE_PATH names a workspace with another React', () => {
    const printed = execFileSync(process.execPath, ['--import', 'tsx', join(folder, 'probe.mjs')], {
      cwd: packageDir,
      env: { PATH: '/usr/bin:/bin', HOME: tmpdir(), NODE_PATH: join(folder, 'node_modules') },
      encoding: 'utf8',
    });
    expect(JSON.parse(printed.trim().split('\n').pop()!)).toMatchObject({ imported: true, required: true });
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const runner = new URL('./cli-runner.mjs', import.meta.url).href;
const root = mkdtempSync(join(tmpdir(), 'cli-runner-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A package with a command: TypeScript importing TypeScript, a package of node_modules and a file beside it. */
function write(path: string, text: string) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}
write('pkg/package.json', '{ "type": "module" }');
write('pkg/node_modules/greeting/package.json', '{ "name": "greeting", "type": "module", "exports": "./index.js" }');
write('pkg/node_modules/greeting/index.js', 'export const greeting = "hello";');
write('pkg/src/words.txt', 'from the file beside it');
write('pkg/src/name.ts', 'export const name: string = "first";');
write(
  'pkg/src/command.ts',
  [
    "import { readFileSync } from 'node:fs';",
    "import { greeting } from 'greeting';",
    "import { name } from './name.ts';",
    "const words = readFileSync(new URL('./words.txt', import.meta.url), 'utf8');",
    'const main = import.meta.url === `file://${process.argv[1]}`;',
    'console.log(`${greeting} ${name}, ${words}, main: ${main}, args: ${process.argv.slice(2).join(" ")}`);',
  ].join('\n'),
);
// Its launcher, as site-server/bin/release.mjs is one.
write(
  'pkg/bin/command.mjs',
  `import { runCli } from ${JSON.stringify(runner)};\nawait runCli(new URL('../src/command.ts', import.meta.url));\n`,
);
const run = (...args: string[]) =>
  execFileSync(process.execPath, [join(root, 'pkg/bin/command.mjs'), ...args], { encoding: 'utf8' }).trim();
const current = () => JSON.parse(readFileSync(join(root, 'pkg/dist/cli/src-command/current.json'), 'utf8')).dir;

describe('a command run from its bundle', () => {
  it('runs as its TypeScript would: its imports, its files beside it, its arguments, as the main module', () => {
    expect(run('list', '--all')).toBe('hello first, from the file beside it, main: true, args: list --all');
    const built = readFileSync(join(root, 'pkg/dist/cli/src-command', current(), 'main.mjs'), 'utf8');
    // The package stays in node_modules, imported where it is; the workspace's code is in the bundle.
    expect(built).toContain('from "../../../../node_modules/greeting/index.js"');
    expect(built).toContain('"first"');
  });

  it('is built once, and again when a source it was built from changes', () => {
    run();
    const first = current();
    expect(run()).toContain('hello first');
    expect(current()).toBe(first);
    write('pkg/src/name.ts', 'export const name: string = "second";');
    const later = new Date(Date.now() + 2_000);
    utimesSync(join(root, 'pkg/src/name.ts'), later, later);
    expect(run()).toContain('hello second');
    expect(current()).not.toBe(first);
  });
});

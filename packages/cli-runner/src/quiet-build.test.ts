import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'quiet-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A package of the workspace in `root`, whose build runs `script`. */
function workspacePackage(folder: string, script: string) {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, 'package.json'), JSON.stringify({ name: folder, scripts: { build: script } }));
}
workspacePackage('good', 'mkdir -p dist && head -c 4096 /dev/zero > dist/app.js && echo "vite chatter line"');
workspacePackage('broken', 'echo "src/app.tsx: Unexpected token"; exit 2');
workspacePackage('packages/lib', 'echo "lib chatter"; mkdir -p dist && echo x > dist/lib.js');

/** The runner as `pnpm build` starts it, on `root` (the bin finds the workspace from where it lies, so copy it). */
function quietBuild(...args: string[]) {
  mkdirSync(join(root, 'packages', 'cli-runner', 'bin'), { recursive: true });
  mkdirSync(join(root, 'packages', 'cli-runner', 'src'), { recursive: true });
  for (const file of ['bin/quiet-build.mjs', 'src/quiet-build.mjs']) {
    writeFileSync(
      join(root, 'packages', 'cli-runner', file),
      readFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), 'utf8'),
    );
  }
  return spawnSync(process.execPath, [join(root, 'packages', 'cli-runner', 'bin', 'quiet-build.mjs'), ...args], {
    encoding: 'utf8',
  });
}

describe('the quiet build', () => {
  it('prints one line per package, its time and the size it wrote, and none of the builds’ own output', () => {
    const { status, stdout } = quietBuild('good', 'packages/lib');
    expect(status).toBe(0);
    expect(stdout).not.toContain('chatter');
    expect(stdout).toMatch(/^ {2}good {9}\s*\d+\.\d s {2}4 KiB$/m);
    expect(stdout).toMatch(/^ {2}packages\/lib\s+\d+\.\d s {2}0 KiB$/m);
    expect(stdout).toMatch(/^Built in \d+\.\d s\.$/m);
  });

  it('prints a failed build’s whole output and fails; --verbose prints every build’s output', () => {
    const failed = quietBuild('broken', 'good');
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(
      /^ {2}broken\s+failed after \d+\.\d s \(echo .*\):\nsrc\/app\.tsx: Unexpected token$/m,
    );
    expect(failed.stdout).toContain('A build failed');
    expect(quietBuild('good', '--verbose').stdout).toContain('vite chatter line');
  });

  it('builds every package of the workspace with a build script when none is named', () => {
    const every = quietBuild().stdout;
    expect(every).toMatch(/^Building 3 packages/m);
  });
});

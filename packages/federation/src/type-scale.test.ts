import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Every stylesheet of every app and shared package, as written (not built). */
function stylesheets(folder = root): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) {
      return ['node_modules', 'dist', 'dist-pages', '.git', '.data', 'test-results'].includes(entry.name)
        ? []
        : stylesheets(join(folder, entry.name));
    }
    return entry.name.endsWith('.css') ? [join(folder, entry.name)] : [];
  });
}

describe('the type scale', () => {
  const files = stylesheets();

  it('finds the stylesheets of the shell, the remotes and the shared packages', () => {
    const names = files.map((file) => relative(root, file));
    for (const folder of ['shell/', 'consumer/', 'vendor/', 'business/', 'legal/', 'account/', 'packages/ui/'])
      expect(
        names.some((name) => name.startsWith(folder)),
        folder,
      ).toBe(true);
  });

  it('is the only source of font sizes: no stylesheet sets one of its own', () => {
    const ownSizes = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/font-size:\s*([^;}]+)/g)]
        .map((match) => match[1]!.trim())
        .filter((value) => !/^var\(--text-(xs|sm|base|lg|xl|[2-5]xl)\)$/.test(value))
        .map((value) => `${relative(root, file)}: font-size: ${value}`),
    );
    expect(ownSizes).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { remotes } from './index.ts';

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

const files = stylesheets();

describe('the type scale', () => {
  it('finds the stylesheets of the shell, the remotes and the shared packages', () => {
    const names = files.map((file) => relative(root, file));
    for (const folder of ['shell/', 'packages/ui/'])
      expect(
        names.some((name) => name.startsWith(folder)),
        folder,
      ).toBe(true);
    // A new remote may have no stylesheet yet: some remotes' folders are read, whichever they are.
    const styled = Object.values(remotes).filter((remote) =>
      names.some((name) => name.startsWith(`${remote.folder}/`)),
    );
    expect(styled.length).toBeGreaterThan(0);
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

/** The values of a declaration, split at spaces outside parentheses: `0 auto var(--space-3)` is three. */
const termsOf = (value: string) => value.match(/(?:[^\s(]+|\([^)]*(?:\([^)]*\)[^)]*)*\))+/g) ?? [];

describe('the spacing scale', () => {
  it('is the only source of margins, paddings and gaps: no stylesheet sets a length of its own', () => {
    const ownLengths = files.flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(
          /(?<![\w-])((?:margin|padding)(?:-(?:top|right|bottom|left|block|inline)(?:-(?:start|end))?)?|(?:row-|column-)?gap):\s*([^;}]+)/g,
        ),
      ]
        .flatMap((match) => termsOf(match[2]!.trim()).map((term) => `${match[1]}: ${term}`))
        // Zero, auto, and anything made from the tokens (var(--space-*), calc() and max() of them) are the scale.
        .filter((declaration) => !/: (0|auto|.*var\(--space-[\w-]+\).*)$/.test(declaration))
        // The one accessibility idiom that needs a length: the visually hidden text's -1px.
        .filter((declaration) => !(file.endsWith('tokens.css') && declaration === 'margin: -1px'))
        .map((declaration) => `${relative(root, file)}: ${declaration}`),
    );
    expect(ownLengths).toEqual([]);
  });
});

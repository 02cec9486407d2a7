import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pageRoutes, paths } from '@gift/content';
import { remotes, shellDevPort } from '@gift/federation';
import { descriptionToRewrite, newPage, newRemote, type Workspace } from './scaffold.ts';

const real = fileURLToPath(new URL('../../../', import.meta.url));

/** The files the scaffolds read and change, copied from this workspace into a folder of their own. */
function workspaceCopy(): Workspace {
  const root = mkdtempSync(join(tmpdir(), 'scaffold-unit-'));
  for (const file of [
    'vendor/package.json',
    'vendor/tsconfig.json',
    'packages/federation/src/index.ts',
    'packages/content/src/paths.ts',
    'packages/content/src/routes.ts',
  ]) {
    cpSync(join(real, file), join(root, file));
  }
  return {
    root,
    remotes,
    routePaths: pageRoutes.map((route) => route.path),
    pathNames: Object.keys(paths),
    shellDevPort,
  };
}

const read = (workspace: Workspace, file: string) => readFileSync(join(workspace.root, file), 'utf8');

describe('pnpm new remote', () => {
  it('adds the remote to the one list of remotes, on the next free dev port, with a folder like the others', () => {
    const workspace = workspaceCopy();
    const nextPort = Math.max(...Object.values(remotes).map((remote) => remote.devPort)) + 1;
    newRemote(workspace, 'gift-cards', 'The gift cards remote.');
    expect(read(workspace, 'packages/federation/src/index.ts')).toContain(
      `  gift_cards: { folder: 'gift-cards', devPort: ${nextPort} },\n} as const;`,
    );
    expect(read(workspace, 'gift-cards/vite.config.mts')).toContain(
      "remoteConfig('gift_cards', exposedPages('gift_cards'))",
    );
    const manifest = JSON.parse(read(workspace, 'gift-cards/package.json')) as { name: string; scripts: object };
    expect(manifest.name).toBe('gift-cards');
    expect(manifest.scripts).toEqual(JSON.parse(read(workspace, 'vendor/package.json')).scripts);
  });

  it('refuses a name that is no folder name, or one taken, and changes nothing', () => {
    const workspace = workspaceCopy();
    const before = read(workspace, 'packages/federation/src/index.ts');
    expect(() => newRemote(workspace, 'Gift Cards', '')).toThrow('lower-case words joined by hyphens');
    expect(() => newRemote(workspace, 'vendor', '')).toThrow('There is a remote or a folder named vendor already');
    expect(read(workspace, 'packages/federation/src/index.ts')).toBe(before);
  });
});

describe('pnpm new page', () => {
  it('adds the path, the route, the copy, the page with its h1, a unit test and an e2e smoke test', () => {
    const workspace = workspaceCopy();
    const written = newPage(workspace, 'vendor', '/vendor-stories', 'Stories from our vendors');
    expect(written).toEqual([
      'vendor/src/content/vendor-stories.content.ts',
      'vendor/src/pages/vendor-stories-page.tsx',
      'vendor/src/pages/vendor-stories-page.test.tsx',
      'e2e/tests/vendor-stories-page.spec.ts',
      'packages/content/src/paths.ts',
      'packages/content/src/routes.ts',
    ]);
    expect(read(workspace, 'packages/content/src/paths.ts')).toContain(
      "  vendorStories: '/vendor-stories',\n} as const;",
    );
    expect(read(workspace, 'packages/content/src/routes.ts')).toMatch(
      /path: paths\.vendorStories,\n\s+remote: 'vendor',\n\s+module: '\.\/vendor-stories-page',\n\s+title: 'Stories from our vendors',[\s\S]*\n\] as const satisfies/,
    );
    expect(read(workspace, 'vendor/src/pages/vendor-stories-page.tsx')).toContain('<h1>{vendorStories.title}</h1>');
    expect(read(workspace, 'vendor/src/content/vendor-stories.content.ts')).toContain(
      "title: 'Stories from our vendors',",
    );
  });

  it('refuses an unknown remote, a path in use or malformed, and an empty title', () => {
    const workspace = workspaceCopy();
    expect(() => newPage(workspace, 'vendeur', '/x', 'X')).toThrow('No remote named vendeur; the remotes are consumer');
    expect(() => newPage(workspace, 'vendor', '/vendor', 'X')).toThrow('The route table has /vendor already');
    expect(() => newPage(workspace, 'vendor', 'stories', 'X')).toThrow('lower-case words and hyphens after a slash');
    expect(() => newPage(workspace, 'vendor', '/Stories', 'X')).toThrow('lower-case words and hyphens after a slash');
    expect(() => newPage(workspace, 'vendor', '/stories', ' ')).toThrow('A page needs a title');
    expect(() => newPage(workspace, 'vendor', '/stories', 'x'.repeat(81))).toThrow(
      `A page needs a title of 1 to 80 characters, not "${'x'.repeat(81)}"`,
    );
  });

  it('gives a page with a short title a route the route table’s tests accept', () => {
    const workspace = workspaceCopy();
    newPage(workspace, 'vendor', '/jobs', 'FAQ');
    const entry = /\{\n\s+path: paths\.jobs,[\s\S]*?\n {2}\},/.exec(
      read(workspace, 'packages/content/src/routes.ts'),
    )![0];
    const title = /title: '([^']*)'/.exec(entry)![1]!;
    const description = /description: '([^']*)'/.exec(entry)![1]!;
    // The rules of packages/content/src/routes.test.ts ("gives every route a title and description").
    expect(title).toBe('FAQ');
    expect(description.length).toBeGreaterThan(20);
    expect(description).toBe(`FAQ. ${descriptionToRewrite}`);
  });

  it('writes a title with quotes as a valid string', () => {
    const workspace = workspaceCopy();
    newPage(workspace, 'legal', '/cookies', "Cookies: what's stored");
    expect(read(workspace, 'legal/src/content/cookies.content.ts')).toContain("title: 'Cookies: what\\'s stored',");
  });
});

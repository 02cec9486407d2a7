import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { watchedFile } from './watched-file.ts';

describe('a file kept in memory until it changes', () => {
  it('is read again after it is written', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'watched-'));
    writeFileSync(join(folder, 'page.html'), 'first');
    const page = watchedFile(join(folder, 'page.html'), (text) => text);
    expect(page()).toBe('first');
    writeFileSync(join(folder, 'page.html'), 'second');
    await vi.waitFor(() => expect(page()).toBe('second'));
  });

  it('follows its folder when a build removes the folder and makes it again', async () => {
    const root = mkdtempSync(join(tmpdir(), 'watched-'));
    const folder = join(root, 'dist-pages');
    const write = (text: string) => {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'page.html'), text);
    };
    write('first build');
    const page = watchedFile(join(folder, 'page.html'), (text) => text);
    expect(page()).toBe('first build');
    for (const build of ['second build', 'third build']) {
      rmSync(folder, { recursive: true });
      write(build);
      // Served stale (with links to assets the build removed) before: the watch lost the folder.
      await vi.waitFor(() => expect(page()).toBe(build));
      // Still followed: a later write in the new folder is seen too.
      writeFileSync(join(folder, 'page.html'), `${build}, patched`);
      await vi.waitFor(() => expect(page()).toBe(`${build}, patched`));
    }
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * What `pnpm new remote` and `pnpm new page` write. Every list the site reads (the remotes in packages/federation,
 * the paths and the route table in packages/content) gets its entry; everything else (the shell's router, the
 * remote's exposed modules, prerendering, the sitemap, the release tooling, the dev servers) follows from those.
 */

export interface Workspace {
  root: string;
  /** The remotes as packages/federation lists them: name, folder, dev port. */
  remotes: Record<string, { folder: string; devPort: number }>;
  /** The route patterns the route table has now, and the names of the paths map. */
  routePaths: string[];
  pathNames: string[];
  shellDevPort: number;
}

const kebab = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const camelCase = (words: string) => words.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
const pascalCase = (words: string) => camelCase(words).replace(/^[a-z]/, (letter) => letter.toUpperCase());
/** A string literal in the house style (single quotes). */
const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function write(path: string, content: string) {
  if (existsSync(path)) throw new Error(`${path} exists already: nothing was changed`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** Inserts `entry` before the first match of `closing` in a file; fails loudly when the file's shape changed. */
function insertBefore(path: string, closing: string, entry: string) {
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(closing);
  if (at < 0) throw new Error(`${path} no longer ends its list with "${closing.trim()}": add the entry by hand`);
  writeFileSync(path, `${text.slice(0, at)}${entry}${text.slice(at)}`);
}

/** A new remote with no route yet: its folder, its entry in the remotes list, a free dev port. */
export function newRemote(workspace: Workspace, folder: string, description: string): string[] {
  if (!kebab.test(folder) || folder.length > 30) {
    throw new Error(`A remote's name is lower-case words joined by hyphens (like gift-cards), not "${folder}"`);
  }
  const name = folder.replaceAll('-', '_');
  if (name in workspace.remotes || existsSync(join(workspace.root, folder))) {
    throw new Error(`There is a remote or a folder named ${folder} already`);
  }
  const taken = [workspace.shellDevPort, ...Object.values(workspace.remotes).map((remote) => remote.devPort)];
  const devPort = Math.max(...taken) + 1;
  const vendorManifest = JSON.parse(readFileSync(join(workspace.root, 'vendor/package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const remoteFolder = join(workspace.root, folder);
  const written = [
    `${folder}/package.json`,
    `${folder}/tsconfig.json`,
    `${folder}/vite.config.mts`,
    `${folder}/src/pages/.gitkeep`,
    `${folder}/src/content/.gitkeep`,
  ];
  write(
    join(remoteFolder, 'package.json'),
    `${JSON.stringify(
      {
        name: folder,
        version: '1.0.0',
        private: true,
        description,
        scripts: vendorManifest.scripts,
        dependencies: {
          '@gift/content': 'workspace:*',
          '@gift/router': 'workspace:*',
          '@gift/store': 'workspace:*',
          '@gift/ui': 'workspace:*',
          react: 'catalog:',
          'react-dom': 'catalog:',
          zustand: 'catalog:',
        },
        devDependencies: {
          '@gift/federation': 'workspace:*',
          '@types/react': 'catalog:',
          '@types/react-dom': 'catalog:',
          '@vitejs/plugin-react': 'catalog:',
          typescript: 'catalog:',
          vite: 'catalog:',
        },
      },
      null,
      2,
    )}\n`,
  );
  write(join(remoteFolder, 'tsconfig.json'), readFileSync(join(workspace.root, 'vendor/tsconfig.json'), 'utf8'));
  write(
    join(remoteFolder, 'vite.config.mts'),
    `import { defineConfig } from 'vite';
import { exposedPages } from '@gift/content';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig(remoteConfig(${quoted(name)}, exposedPages(${quoted(name)})));
`,
  );
  write(join(remoteFolder, 'src/pages/.gitkeep'), '');
  write(join(remoteFolder, 'src/content/.gitkeep'), '');
  insertBefore(
    join(workspace.root, 'packages/federation/src/index.ts'),
    '} as const;\n\nexport type RemoteName',
    `  ${name}: { folder: ${quoted(folder)}, devPort: ${devPort} },\n`,
  );
  return [...written, 'packages/federation/src/index.ts'];
}

/** A new page of `folder`'s remote at `path`: its copy, its component with its `h1`, a unit test, an e2e smoke test. */
/**
 * What a new page's description says until its team writes one (the command asks them to): true of every page of the
 * site, and long enough for the route table's tests and a search result, whatever the title.
 */
export const descriptionToRewrite = 'Pick, personalise and send gifts from one app.';

export function newPage(workspace: Workspace, folder: string, path: string, title: string): string[] {
  const entry = Object.entries(workspace.remotes).find(([, remote]) => remote.folder === folder);
  if (!entry) {
    throw new Error(
      `No remote named ${folder}; the remotes are ${Object.values(workspace.remotes)
        .map((remote) => remote.folder)
        .join(', ')}`,
    );
  }
  const segments = path.split('/').slice(1);
  if (!path.startsWith('/') || !segments.length || !segments.every((segment) => kebab.test(segment))) {
    throw new Error(`A page's path is lower-case words and hyphens after a slash (like /gift-cards), not "${path}"`);
  }
  if (workspace.routePaths.includes(path)) throw new Error(`The route table has ${path} already`);
  if (workspace.pathNames.includes(camelCase(segments.join('-')))) {
    throw new Error(`The paths map has a page named ${camelCase(segments.join('-'))} already`);
  }
  const cleanTitle = title.trim();
  // The route table's own tests ask every title for 1 to 80 characters: a title they would fail is refused here.
  if (cleanTitle.length < 1 || cleanTitle.length > 80) {
    throw new Error(`A page needs a title of 1 to 80 characters, not "${cleanTitle}"`);
  }
  const [remote] = entry;
  const name = segments.join('-');
  const component = `${pascalCase(name)}Page`;
  const content = camelCase(name);
  const files = {
    content: `${folder}/src/content/${name}.content.ts`,
    page: `${folder}/src/pages/${name}-page.tsx`,
    test: `${folder}/src/pages/${name}-page.test.tsx`,
    smoke: `e2e/tests/${name}-page.spec.ts`,
  };
  write(
    join(workspace.root, files.content),
    `/** The copy of ${path}: what the page says, as data (the component only renders it). */
export const ${content} = {
  title: ${quoted(cleanTitle)},
} as const;
`,
  );
  write(
    join(workspace.root, files.page),
    `import { ${content} } from '../content/${name}.content.ts';

export function ${component}() {
  return (
    <article>
      <h1>{${content}.title}</h1>
    </article>
  );
}

export default ${component};
`,
  );
  write(
    join(workspace.root, files.test),
    `import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ${component} } from './${name}-page.tsx';

describe('${component}', () => {
  it('names the page in its one main heading', () => {
    render(<${component} />);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(${quoted(cleanTitle)});
  });
});
`,
  );
  write(
    join(workspace.root, files.smoke),
    `import { expect, expectShellAround, test } from './support.ts';

test('${path} shows its heading inside the header and footer', async ({ page }) => {
  await page.goto(${quoted(path)});
  await expect(page.getByRole('heading', { level: 1, name: ${quoted(cleanTitle)} })).toBeVisible();
  await expectShellAround(page);
});
`,
  );
  insertBefore(
    join(workspace.root, 'packages/content/src/paths.ts'),
    '} as const;\n\nexport type PagePath',
    `  ${content}: ${quoted(path)},\n`,
  );
  insertBefore(
    join(workspace.root, 'packages/content/src/routes.ts'),
    '] as const satisfies readonly PageRoute[];',
    `  {
    path: paths.${content},
    remote: ${quoted(remote)},
    module: ${quoted(`./${name}-page`)},
    title: ${quoted(cleanTitle)},
    description: ${quoted(`${cleanTitle}. ${descriptionToRewrite}`)},
    prerender: true,
    inSitemap: true,
  },
`,
  );
  return [...Object.values(files), 'packages/content/src/paths.ts', 'packages/content/src/routes.ts'];
}

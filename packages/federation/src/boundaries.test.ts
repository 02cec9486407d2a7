import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: fileURLToPath(new URL('../../..', import.meta.url)) });

/** The boundary errors lint reports for `code` written in the file at `path` (from the workspace root). */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('lint-enforced boundaries', () => {
  it.each([
    ['a remote importing react-router', 'consumer/src/pages/x.tsx', "import { Link } from 'react-router';"],
    ['a remote importing another remote', 'consumer/src/pages/x.tsx', "import { VendorPage } from 'vendor';"],
    ['a remote reaching into another', 'consumer/src/pages/x.tsx', "import x from '../../../vendor/src/x.ts';"],
    ['the shell importing a remote', 'shell/src/app/x.tsx', "import { LegalPage } from 'legal/src/x.tsx';"],
    ['a package importing an app', 'packages/ui/src/x.tsx', "import { Header } from '../../../shell/src/x.tsx';"],
    ['the API importing React', 'api/src/x.ts', "import { useState } from 'react';"],
    ['the API importing the UI', 'api/src/x.ts', "import { Faq } from '@gift/ui';"],
    ['a package importing the API', 'packages/scaffold/src/x.ts', "import { readConfig } from 'api';"],
    ['a package importing the site server', 'packages/ui/src/x.ts', "import { startSite } from 'site-server';"],
    ['a remote importing server code', 'vendor/src/x.tsx', "import { x } from '../../site-server/src/pages/x.ts';"],
    ['the shell importing the API', 'shell/src/app/x.tsx', "import { readConfig } from 'api';"],
    [
      'the release tool reaching into the server',
      'site-server/src/releases/checks.ts',
      "import { createSiteServer } from '../server.ts';",
    ],
    [
      'the release tool importing a page renderer directly',
      'site-server/src/releases/checks.ts',
      "import { createPageRenderer } from '../pages/prerender.ts';",
    ],
    [
      'the server importing the release tool',
      'site-server/src/pages/x.ts',
      "import { promote } from '../releases/release.ts';",
    ],
    [
      'the server wiring importing the release tool',
      'site-server/src/main.ts',
      "import { x } from './releases/cli.ts';",
    ],
    ['the watch reaching into the pages', 'site-server/src/watch/x.ts', "import { x } from '../pages/pages.ts';"],
    [
      'the watch importing the release tool',
      'site-server/src/watch/x.ts',
      "import { x } from '../releases/release.ts';",
    ],
    ['the ledger importing the server', 'site-server/src/ledger/x.ts', "import { x } from '../remotes/builds.ts';"],
  ])('refuses %s', async (_case, path, code) => {
    expect(await boundaryErrors(path, code)).toHaveLength(1);
  });

  it.each([
    ['a remote using the shared router', 'consumer/src/pages/x.tsx', "import { Link } from '@gift/router';"],
    [
      'a remote test using test routers',
      'vendor/src/x.test.tsx',
      "import { RouterProvider } from '@gift/router/testing';",
    ],
    ['the shell owning the router', 'shell/src/app/x.tsx', "import { Routes } from 'react-router';"],
    ['the API using shared copy', 'api/src/x.ts', "import { paths } from '@gift/content';"],
    ['a remote importing its own files', 'vendor/src/pages/x.tsx', "import { x } from '../components/x.tsx';"],
    ['the release tool using the ledger', 'site-server/src/releases/x.ts', "import { x } from '../ledger/ledger.ts';"],
    ['the release tool starting a site', 'site-server/src/releases/x.ts', "import { startSite } from '../site.ts';"],
    ['the watch using the ledger', 'site-server/src/watch/x.ts', "import { x } from '../ledger/switches.ts';"],
    ['the server using the ledger', 'site-server/src/remotes/x.ts', "import { x } from '../ledger/ledger.ts';"],
    ['the site server using the API', 'site-server/src/server.ts', "import { apiPlugin } from 'api';"],
  ])('allows %s', async (_case, path, code) => {
    expect(await boundaryErrors(path, code)).toEqual([]);
  });
});

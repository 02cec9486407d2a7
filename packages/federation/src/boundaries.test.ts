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
  ])('allows %s', async (_case, path, code) => {
    expect(await boundaryErrors(path, code)).toEqual([]);
  });
});

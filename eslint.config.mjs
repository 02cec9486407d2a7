import { existsSync, readdirSync } from 'node:fs';
import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The apps are the top-level folders with a Vite config: the shell and one folder per remote. */
const root = new URL('.', import.meta.url);
const apps = readdirSync(root).filter((folder) => existsSync(new URL(`${folder}/vite.config.mts`, root)));
const remotes = apps.filter((app) => app !== 'shell');
/** The servers and the tools that run beside the apps: deployed or run on their own, imported by no package. */
const servers = ['api', 'site-server', 'react-floor', 'e2e'];

/** An import of an app, by package name or by a relative path into its folder. */
const appImports = (names) => ({
  regex: `^(?:${names.join('|')})(?:/|$)|^(?:\\.\\./)+(?:${names.join('|')})/`,
  message: 'Apps are deployed on their own: share code through packages/ instead.',
});

/** A rule of `files` that refuses the imports matching `patterns` (tests excepted where `ignores` says). */
const restrict = (files, patterns, { paths = [], ignores = [] } = {}) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
});

/** In the site server: a relative import, from a file one folder below src/, of one of `parts` (folders or files). */
const parts = (names, message) => ({ regex: `^\\.\\./(?:${names.join('|')})(?:/|$)`, message });
const servingParts = [
  'pages',
  'remotes',
  'previews',
  'http',
  'watch',
  'dev',
  'main\\.ts',
  'server\\.ts',
  'settings\\.ts',
];
const toReleases = 'The site server reaches the release tool only through the ledger (ledger/).';
// Tests, and the helpers only tests import (`test-*.ts`).
const tests = { ignores: ['site-server/**/*.test.ts', 'site-server/**/test-*.ts'] };

const routerImport = {
  name: 'react-router',
  message: "Use '@gift/router' (the shell's one router, shared at run time); tests use '@gift/router/testing'.",
};

/** Where each part may reach: enforced here, so that a wrong import fails lint, not a browser. */
const boundaries = [
  ...remotes.map((remote) =>
    restrict([`${remote}/**/*.{ts,tsx}`], [appImports([...apps.filter((app) => app !== remote), ...servers])], {
      paths: [routerImport],
    }),
  ),
  restrict(['shell/**/*.{ts,tsx}'], [appImports([...remotes, ...servers])]),
  restrict(['packages/**/*.{ts,tsx}'], [appImports([...apps, ...servers])]),
  restrict(
    ['api/**/*.ts'],
    [
      appImports([...apps, 'site-server']),
      {
        regex: '^(?:react|react-dom|react-router|zustand|@gift/(?:ui|router|store|federation))(?:/|$)',
        message: 'The API is a service: it never imports front-end code.',
      },
    ],
  ),
  // The site server: the release tool and the serving side meet only at the ledger (src/ledger/); the checks start a
  // site through the named entry (src/site.ts); a preview link checks the site's address as the server does, from its
  // own module (site.ts would load the whole server). Tests may exercise both sides together.
  restrict(
    ['site-server/src/releases/**/*.ts'],
    [
      parts(
        servingParts.map((part) => (part === 'http' ? 'http(?!/site-origin\\.ts$)' : part)),
        'The release tool reaches the site server only through the ledger (../ledger/), ../site.ts and ../http/site-origin.ts.',
      ),
    ],
    tests,
  ),
  restrict(['site-server/src/{pages,remotes,previews,http,dev}/**/*.ts'], [parts(['releases'], toReleases)], tests),
  restrict(['site-server/src/*.ts'], [{ regex: '^\\./releases/', message: toReleases }], tests),
  restrict(
    ['site-server/src/watch/**/*.ts'],
    [
      parts(
        [...servingParts.filter((part) => part !== 'watch'), 'releases'],
        'The release watch talks to the ledger only (../ledger/): it switches versions there, as a release does.',
      ),
    ],
    tests,
  ),
  restrict(
    ['site-server/src/ledger/**/*.ts'],
    [{ regex: '^\\.\\./', message: 'The ledger is the seam of the release tool and the server: it imports neither.' }],
    tests,
  ),
];

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/dist-pages/**',
      '**/node_modules/**',
      '**/test-results/**',
      '**/playwright-report/**',
      '**/.data/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...boundaries,
  // Playwright fixtures call `use`, which is not React's hook.
  { files: ['e2e/**/*.ts'], rules: { 'react-hooks/rules-of-hooks': 'off' } },
  { files: ['**/*.{js,mjs}'], languageOptions: { globals: globals.node } },
  { files: ['shell/public/**/*.js'], languageOptions: { sourceType: 'script', globals: globals.browser } },
);

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

/** A relative import, from a file one folder below the site server's src/, of one of `targets` (folders or files). */
const siteServerParts = (targets, message) => ({
  regex: `^\\.\\./(?:${targets.join('|')})(?:/|$)`,
  message,
});
const servingFolders = ['pages', 'remotes', 'previews', 'http', 'watch', 'dev'];
const servingFiles = ['main\\.ts', 'server\\.ts', 'settings\\.ts'];
const siteServerTests = ['site-server/**/*.test.ts'];

const routerImport = {
  name: 'react-router',
  message: "Use '@gift/router' (the shell's one router, shared at run time); tests use '@gift/router/testing'.",
};

/** Where each part may reach: enforced here, so that a wrong import fails lint, not a browser. */
const boundaries = [
  ...remotes.map((remote) => ({
    files: [`${remote}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [routerImport], patterns: [appImports([...apps.filter((app) => app !== remote), ...servers])] },
      ],
    },
  })),
  {
    files: ['shell/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [appImports([...remotes, ...servers])] }] },
  },
  {
    files: ['packages/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [appImports([...apps, ...servers])] }] },
  },
  {
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            appImports([...apps, 'site-server']),
            {
              regex: '^(?:react|react-dom|react-router|zustand|@gift/(?:ui|router|store|federation))(?:/|$)',
              message: 'The API is a service: it never imports front-end code.',
            },
          ],
        },
      ],
    },
  },
  // The site server: the release tool and the serving side meet only at the ledger (src/ledger/); the checks start a
  // site through the named entry (src/site.ts). Tests may exercise both sides together.
  {
    files: ['site-server/src/releases/**/*.ts'],
    ignores: siteServerTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            siteServerParts(
              [...servingFolders, ...servingFiles],
              'The release tool reaches the site server only through the ledger (../ledger/) and its named entry (../site.ts).',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['site-server/src/{pages,remotes,previews,http,dev}/**/*.ts'],
    ignores: siteServerTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            siteServerParts(
              ['releases'],
              'The site server reaches the release tool only through the ledger (../ledger/).',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['site-server/src/*.ts'],
    ignores: siteServerTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\./releases/',
              message: 'The site server reaches the release tool only through the ledger (./ledger/).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['site-server/src/watch/**/*.ts'],
    ignores: siteServerTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            siteServerParts(
              [...servingFolders.filter((folder) => folder !== 'watch'), 'releases', ...servingFiles],
              'The release watch talks to the ledger only (../ledger/): it switches versions there, as a release does.',
            ),
          ],
        },
      ],
    },
  },
  {
    files: ['site-server/src/ledger/**/*.ts'],
    ignores: siteServerTests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./',
              message: 'The ledger is the seam between the release tool and the server: it imports neither.',
            },
          ],
        },
      ],
    },
  },
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

import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

const root = new URL('.', import.meta.url);
const folders = (path: string) =>
  readdirSync(new URL(path, root), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => (path === '.' ? entry.name : `${path}/${entry.name}`));

/** The apps (the shell and every remote: the folders with a Vite config) and the one package of components. */
const browserPackages = [
  ...folders('.').filter((folder) => existsSync(new URL(`${folder}/vite.config.mts`, root))),
  'packages/ui',
];
/** Every other package, and the two servers. */
const nodePackages = [
  ...folders('packages').filter((folder) => !browserPackages.includes(folder)),
  'api',
  'site-server',
];

/** One vitest run, a project per package; tests sit beside the code they test. */
export default defineConfig({
  test: {
    projects: [
      ...browserPackages.map((dir) => ({
        extends: true as const,
        test: {
          name: dir.replace('packages/', ''),
          root: dir,
          environment: 'jsdom',
          include: ['src/**/*.test.{ts,tsx}'],
          setupFiles: [new URL('./vitest.setup.ts', import.meta.url).pathname],
        },
      })),
      ...nodePackages.map((dir) => ({
        extends: true as const,
        test: { name: dir.replace('packages/', ''), root: dir, environment: 'node', include: ['src/**/*.test.ts'] },
      })),
    ],
    passWithNoTests: false,
    // Twice the cores: many test files wait (on a server or a database of their own, a child process, a timeout) more
    // than they compute. On two cores, 627 tests: 286 s with one worker a core (vitest's default), 180 s with two, 204 s
    // with three (2026-11-29).
    maxWorkers: availableParallelism() * 2,
    // A safety net against a hang, not a measure: a test that sends 2,000 requests takes 2 s on an idle machine and
    // past 5 s (vitest's default) beside a CI run's other work (issue 58).
    testTimeout: 30_000,
  },
  resolve: { conditions: ['module-sync', 'module', 'browser', 'development|production'] },
});

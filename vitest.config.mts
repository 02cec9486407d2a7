import { defineConfig } from 'vitest/config';

const browserPackages = [
  'shell',
  'consumer',
  'vendor',
  'business',
  'legal',
  'account',
  'share-location',
  'packages/ui',
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
      ...['packages/content', 'packages/store', 'packages/site-server', 'api'].map((dir) => ({
        extends: true as const,
        test: { name: dir.replace('packages/', ''), root: dir, environment: 'node', include: ['src/**/*.test.ts'] },
      })),
    ],
    passWithNoTests: false,
  },
  resolve: { conditions: ['module-sync', 'module', 'browser', 'development|production'] },
});

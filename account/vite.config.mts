import { defineConfig, mergeConfig } from 'vite';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig((env) =>
  mergeConfig(
    remoteConfig('account', {
      './delete-account-page': './src/pages/delete-account-page.tsx',
      './confirm-deletion-page': './src/pages/confirm-deletion-page.tsx',
    })(env),
    {
      // Standalone development talks to the API service started with `pnpm --filter api start`.
      server: { proxy: { '/api': 'http://127.0.0.1:3001' } },
    },
  ),
);

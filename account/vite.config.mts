import { defineConfig, mergeConfig } from 'vite';
import { exposedPages } from '@gift/content';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig((env) =>
  mergeConfig(remoteConfig('account', exposedPages('account'))(env), {
    // Standalone development talks to the API service started with `pnpm --filter api start`.
    server: { proxy: { '/api': 'http://127.0.0.1:3001' } },
  }),
);

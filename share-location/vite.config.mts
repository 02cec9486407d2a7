import { defineConfig, mergeConfig } from 'vite';
import { exposedPages } from '@gift/content';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig((env) =>
  mergeConfig(remoteConfig('share_location', exposedPages('share_location'))(env), {
    server: { proxy: { '/api': 'http://127.0.0.1:3001' } },
  }),
);

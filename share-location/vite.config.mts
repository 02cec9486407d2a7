import { defineConfig, mergeConfig } from 'vite';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig((env) =>
  mergeConfig(remoteConfig('share_location', { './share-location-page': './src/pages/share-location-page.tsx' })(env), {
    server: { proxy: { '/api': 'http://127.0.0.1:3001' } },
  }),
);

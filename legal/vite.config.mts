import { defineConfig } from 'vite';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig(
  remoteConfig('legal', {
    './privacy-page': './src/pages/privacy-page.tsx',
    './terms-page': './src/pages/terms-page.tsx',
  }),
);

import { defineConfig } from 'vite';
import { remoteConfig } from '@gift/federation/vite';

export default defineConfig(
  remoteConfig('consumer', {
    './landing-page': './src/pages/landing-page.tsx',
    './scroll-lock-page': './src/pages/scroll-lock-page.tsx',
  }),
);

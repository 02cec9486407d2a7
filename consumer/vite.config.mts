import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vite';
import { remoteConfig } from '@gift/federation/vite';

const config = remoteConfig('consumer', {
  './landing-page': './src/pages/landing-page.tsx',
  './scroll-lock-page': './src/pages/scroll-lock-page.tsx',
});

const browserOnly = {
  resolve: {
    alias: { 'resize-observer-polyfill': fileURLToPath(new URL('src/native-resize-observer.ts', import.meta.url)) },
  },
};

export default defineConfig((env) => mergeConfig(config(env), env.isSsrBuild ? {} : browserOnly));

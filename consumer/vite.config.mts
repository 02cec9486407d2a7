import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vite';
import { exposedPages } from '@gift/content';
import { remoteConfig } from '@gift/federation/vite';

const config = remoteConfig('consumer', exposedPages('consumer'));

const browserOnly = {
  resolve: {
    alias: { 'resize-observer-polyfill': fileURLToPath(new URL('src/native-resize-observer.ts', import.meta.url)) },
  },
};

export default defineConfig((env) => mergeConfig(config(env), env.isSsrBuild ? {} : browserOnly));

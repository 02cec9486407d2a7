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

/**
 * One stylesheet for the remote's pages: the landing page's parts that load later (laterPart) are rendered by the
 * server, so their styles are needed at first paint anyway, and one render-blocking request costs less than three.
 */
const oneStylesheet = { build: { cssCodeSplit: false } };

export default defineConfig((env) =>
  mergeConfig(config(env), env.isSsrBuild ? {} : mergeConfig(browserOnly, oneStylesheet)),
);

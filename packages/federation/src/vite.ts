import { federation } from '@module-federation/vite';
import react from '@vitejs/plugin-react';
import type { PluginOption, UserConfig } from 'vite';
import { remoteEntryFile, remotes, type RemoteName } from './index.ts';

/** The modules host and remotes share as one copy each: one React, one router, one store. */
export const sharedSingletons = {
  react: { singleton: true, requiredVersion: '^19.0.0' },
  'react-dom': { singleton: true, requiredVersion: '^19.0.0' },
  'react-router': { singleton: true, requiredVersion: '^7.0.0' },
  zustand: { singleton: true, requiredVersion: '^5.0.0' },
  '@gift/store': { singleton: true, version: '1.0.0', requiredVersion: '^1.0.0' },
};

// Vite 8 resolves some CommonJS packages differently in tests; this keeps one router copy there too.
const resolveConditions = ['module-sync', 'module', 'browser', 'development|production'];

/** Vite config of a remote: exposes page modules, builds relative to wherever it is served. */
export function remoteConfig(name: RemoteName, exposes: Record<string, string>): UserConfig {
  return {
    base: './',
    plugins: [
      react(),
      federation({
        name,
        filename: remoteEntryFile,
        exposes,
        shared: sharedSingletons,
        dts: false,
        manifest: false,
      }) as PluginOption,
    ],
    resolve: { conditions: resolveConditions },
    server: { port: remotes[name].devPort, strictPort: true, origin: `http://localhost:${remotes[name].devPort}` },
    preview: { port: remotes[name].devPort, strictPort: true },
    build: { target: 'es2022', cssCodeSplit: true },
  };
}

/** Vite config of the shell: no remotes at build time, they come from the manifest at run time. */
export function hostConfig(extraPlugins: PluginOption[] = []): UserConfig {
  return {
    plugins: [
      react(),
      federation({
        name: 'shell',
        remotes: {},
        shared: sharedSingletons,
        // Load a remote's entry only when one of its routes is visited.
        shareStrategy: 'loaded-first',
        dts: false,
        manifest: false,
      }) as PluginOption,
      ...extraPlugins,
    ],
    resolve: { conditions: resolveConditions },
    build: { target: 'es2022' },
  };
}

import { existsSync } from 'node:fs';
import { defineConfig, mergeConfig, type Plugin } from 'vite';
import { manifestPath, remoteEntryFile, remotes, shellDevPort } from '@gift/federation';
import { hostConfig } from '@gift/federation/vite';

/** In development the manifest points at each remote's own dev server. */
function devManifest(): Plugin {
  const manifest = Object.fromEntries(
    Object.entries(remotes)
      .filter(([, remote]) => existsSync(new URL(`../${remote.folder}/package.json`, import.meta.url)))
      .map(([name, remote]) => [name, `http://localhost:${remote.devPort}/${remoteEntryFile}`]),
  );
  return {
    name: 'dev-remotes-manifest',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use(manifestPath, (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('Cache-Control', 'no-cache');
        res.end(JSON.stringify(manifest));
      });
    },
  };
}

export default defineConfig((env) =>
  mergeConfig(hostConfig(env, [devManifest()]), {
    server: {
      port: shellDevPort,
      strictPort: true,
      // The API (`pnpm dev` starts it) sees the browser's own Host, as behind the site server: its same-origin check
      // compares the two (Vite's shorthand would rewrite Host to the API's).
      proxy: { '/api': { target: 'http://127.0.0.1:3001', changeOrigin: false } },
    },
  }),
);

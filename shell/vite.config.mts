import { existsSync } from 'node:fs';
import { defineConfig, mergeConfig, type Plugin } from 'vite';
import { devPorts, manifestPath, remoteEntryFile, remotes, type RemoteName } from '@gift/federation';
import { devWatch, hostConfig } from '@gift/federation/vite';

const ports = devPorts(process.env);
/** Each remote's own dev server (`pnpm dev`), by DEV_PORT_OFFSET as the remotes' configs place them. */
const devOrigins = Object.fromEntries(
  Object.entries(remotes)
    .filter(([, remote]) => existsSync(new URL(`../${remote.folder}/package.json`, import.meta.url)))
    .map(([name]) => [name, `http://localhost:${ports.remote(name as RemoteName)}`]),
);

/** In development the manifest points at each remote's own dev server. */
function devManifest(): Plugin {
  const manifest = Object.fromEntries(
    Object.entries(devOrigins).map(([name, origin]) => [name, `${origin}/${remoteEntryFile}`]),
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
    // The page may load remote code from those servers (its own check of each entry's origin).
    define: env.command === 'serve' ? { __DEV_REMOTE_ORIGINS__: JSON.stringify(Object.values(devOrigins)) } : {},
    server: {
      port: ports.shell,
      strictPort: true,
      watch: devWatch,
      // The API (`pnpm dev` starts it) sees the browser's own Host, as behind the site server: its same-origin check
      // compares the two (Vite's shorthand would rewrite Host to the API's).
      proxy: { '/api': { target: `http://127.0.0.1:${ports.api}`, changeOrigin: false } },
    },
  }),
);

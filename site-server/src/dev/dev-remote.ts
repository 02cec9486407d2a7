// dev/: tooling for a developer's loop: one remote from its dev server, the remotes host, rebuilding what is stale.
/**
 * `pnpm dev:remote <remote> --against <site>`: one team works on its remote against a running site (a preview or
 * staging server, or `pnpm start`) without running the other five. The remote is built as it ships and built again
 * on every save (`vite build --watch`), served from its dev port, and the printed link makes this browser compose the
 * site with it (reload the page after a rebuild). A built site cannot host a remote from a Vite dev server (its
 * modules expect the dev server's React Refresh preamble), hence a watched build. A production site ignores the link
 * and logs it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { devPorts, remoteEntryFile, remotes, type RemoteName } from '@gift/federation';
import { overridePath } from '../previews/overrides.ts';

const usage =
  'Usage: pnpm dev:remote <remote> --against <site URL>, for example: pnpm dev:remote vendor --against http://127.0.0.1:4173';
const [folder, flag, against] = process.argv.slice(2);
const found = Object.entries(remotes).find(([, remote]) => remote.folder === folder);
let site: URL | undefined;
try {
  site = against ? new URL(against) : undefined;
} catch {
  site = undefined;
}
if (!found || flag !== '--against' || !site || !['http:', 'https:'].includes(site.protocol)) {
  console.error(
    found
      ? usage
      : `${folder ? `No remote named "${folder}". ` : ''}${usage}\nRemotes: ${Object.values(remotes)
          .map((remote) => remote.folder)
          .join(', ')}`,
  );
  process.exit(2);
}
const [name] = found;
const devPort = devPorts(process.env).remote(name as RemoteName);
const outDir = mkdtempSync(join(tmpdir(), `dev-remote-${folder}-`));
const workspace = fileURLToPath(new URL('../../../', import.meta.url));

// The build, again on every save. RELEASE_OUT_DIR sends it where this server serves from (see remoteConfig).
const build = spawn('pnpm', ['exec', 'vite', 'build', '--watch', '--configLoader', 'runner'], {
  cwd: join(workspace, folder!),
  env: { ...process.env, RELEASE_OUT_DIR: outDir },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const entry = `http://127.0.0.1:${devPort}/${remoteEntryFile}`;
const link = `${site.origin}${overridePath}?remote=${encodeURIComponent(name)}&entry=${encodeURIComponent(entry)}`;
let builds = 0;
build.stdout.on('data', (chunk: Buffer) => {
  if (!/built in [\d.]+\s*m?s/.test(chunk.toString())) return;
  builds += 1;
  console.log(
    builds === 1
      ? `\n  ${folder} is built and served at ${entry}\n  Open ${link}\n  (the site composes its pages with this build for your browser; "end" in the bar stops it)\n`
      : `  ${folder} rebuilt: reload the page`,
  );
});
build.on('exit', (code) => {
  console.error(`The build of ${folder} stopped (${code}).`);
  process.exit(code ?? 1);
});

// The site's pages, on another origin, load these files: scripts need CORS, and a public site reaching this machine
// asks first (Private Network Access).
const server = Fastify();
server.addHook('onSend', async (_request, reply) => {
  reply
    .header('Access-Control-Allow-Origin', '*')
    .header('Access-Control-Allow-Private-Network', 'true')
    .header('Cross-Origin-Resource-Policy', 'cross-origin')
    .header('Cache-Control', 'no-store');
});
server.options('/*', async (_request, reply) => reply.code(204).send());
await server.register(fastifyStatic, { root: outDir, cacheControl: false, etag: false });
await server.listen({ port: devPort, host: '127.0.0.1' });

const stop = () => {
  build.kill();
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { constants as zlib } from 'node:zlib';
import compress from '@fastify/compress';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { isPagePath } from '@gift/content';
import { manifestPath, remoteEntryFile, remotes, type RemotesManifest } from '@gift/federation';
import { apiPlugin, httpServerOptions, type ApiConfig, type Db } from 'api';
import { addTransportHeaders, helmetOptions } from './security-headers.ts';

export interface SiteServerOptions {
  /** Workspace root: the shell's and remotes' `dist` folders are read from here. */
  root: string;
  /** Serve deployed remote builds from this folder at `/remotes/` instead of the workspace's `dist` folders. */
  remotesDir?: string;
  /** A remotes manifest file, read on every request, so repointing a remote needs no restart. */
  manifestFile?: string;
  logger?: FastifyServerOptions['logger'];
  /** The API service, mounted at `/api` on the same origin. */
  api?: { db: Db; config: ApiConfig };
  /** Trust X-Forwarded-* headers: only behind a proxy that sets them. */
  trustProxy?: boolean;
  /** Origins remotes may be loaded from besides this one (a CDN); the CSP allows exactly these. */
  remoteOrigins?: string[];
  /** Longest a client may take to send a whole request; the API's setting when the API is mounted. */
  requestTimeoutMs?: number;
}

const immutable = 'public, max-age=31536000, immutable';
const revalidate = 'no-cache';

function setCacheHeaders(reply: FastifyReply, filePath: string) {
  // Vite puts content-hashed files under assets/; everything else (HTML, remoteEntry.js) must be revalidated.
  reply.header('Cache-Control', filePath.includes(`${sep}assets${sep}`) ? immutable : revalidate);
}

/** Remotes built in this workspace, with the URL their entry is served at. */
export function builtRemotes(root: string) {
  return Object.entries(remotes)
    .map(([name, remote]) => ({
      name,
      dist: join(root, remote.folder, 'dist'),
      entry: `/remotes/${remote.folder}/${remoteEntryFile}`,
      prefix: `/remotes/${remote.folder}/`,
    }))
    .filter((remote) => existsSync(join(remote.dist, remoteEntryFile)));
}

/** The composed site on one origin: the shell, each remote's build under `/remotes/`, the manifest. */
export async function createSiteServer(options: SiteServerOptions): Promise<FastifyInstance> {
  const shellDist = join(options.root, 'shell', 'dist');
  const indexPath = join(shellDist, 'index.html');
  // Re-read when the shell is rebuilt or redeployed, so the HTML never points at assets that are gone.
  let index = { mtimeMs: 0, html: '' };
  const indexHtml = () => {
    const { mtimeMs } = statSync(indexPath);
    if (mtimeMs !== index.mtimeMs) index = { mtimeMs, html: readFileSync(indexPath, 'utf8') };
    return index.html;
  };
  indexHtml();
  const limits = { requestTimeoutMs: options.requestTimeoutMs ?? options.api?.config.requestTimeoutMs ?? 10_000 };
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: options.trustProxy ?? false,
    ...httpServerOptions(limits),
  });

  await app.register(compress, {
    global: true,
    threshold: 1024,
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } },
  });

  await app.register(helmet, helmetOptions(options.remoteOrigins ?? []));
  app.addHook('onSend', async (request, reply) => {
    addTransportHeaders(request, reply);
    reply.header('X-Request-Id', request.id);
  });

  if (options.api) await app.register(apiPlugin, { prefix: '/api', ...options.api });

  const staticOptions = { index: false, cacheControl: false, setHeaders: setCacheHeaders } as const;
  await app.register(fastifyStatic, { ...staticOptions, root: shellDist, prefix: '/' });

  const local = builtRemotes(options.root);
  if (options.remotesDir) {
    await app.register(fastifyStatic, {
      ...staticOptions,
      root: options.remotesDir,
      prefix: '/remotes/',
      decorateReply: false,
    });
  } else {
    for (const remote of local) {
      await app.register(fastifyStatic, {
        ...staticOptions,
        root: remote.dist,
        prefix: remote.prefix,
        decorateReply: false,
      });
    }
  }

  const localManifest: RemotesManifest = Object.fromEntries(local.map((remote) => [remote.name, remote.entry]));
  app.get(manifestPath, async (_request, reply) => {
    const manifest = options.manifestFile ? JSON.parse(await readFile(options.manifestFile, 'utf8')) : localManifest;
    return reply.header('Cache-Control', 'no-cache').send(manifest);
  });

  // Every page is the shell's HTML; its router renders the page, or the not-found page with a 404 status.
  const sendPage = (path: string, reply: FastifyReply) =>
    reply
      .code(isPagePath(path) ? 200 : 404)
      .header('Cache-Control', revalidate)
      .type('text/html; charset=utf-8')
      .send(indexHtml());

  app.get('/', (_request, reply) => sendPage('/', reply));

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const wantsPage = (request.method === 'GET' || request.method === 'HEAD') && !/\.[a-z0-9]+$/i.test(path);
    if (!wantsPage || path.startsWith('/api/') || path.startsWith('/remotes/')) {
      return reply.code(404).send({ error: 'Not Found', message: `No resource at ${path}` });
    }
    return sendPage(path, reply);
  });

  return app;
}

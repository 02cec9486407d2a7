import cors from '@fastify/cors';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { staticOptions } from '../remotes/builds.ts';

/**
 * A static host for the deployed remotes (REMOTES_DIR) on an origin of its own, as a CDN serves them: the same files
 * and cache headers as the site serves under `/remotes/`, readable by scripts from exactly the site's origins (CORS),
 * since the site loads remote code as modules.
 */
export async function createRemotesHost(options: {
  remotesDir: string;
  siteOrigins: string[];
}): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(cors, { origin: options.siteOrigins, methods: ['GET', 'HEAD'] });
  // Files to be run as scripts by the site, never a document of their own: nothing in them may load or run.
  app.addHook('onSend', async (_request, reply) => {
    reply
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .header('Content-Security-Policy', "default-src 'none'");
  });
  await app.register(fastifyStatic, { ...staticOptions, root: options.remotesDir, prefix: '/' });
  return app;
}

/**
 * Serves the React floor with the site server's settings: its security headers and CSP, request ids and log line,
 * compression, the static files' cache headers and Brotli copies, and the page kept in memory in three forms with an
 * ETag, as the site's pages are. `/` is the React floor, `/plain` the HTML floor (no script).
 */
import { readFileSync } from 'node:fs';
import compress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { httpServerOptions, logEachRequest, loggerOptions } from 'api';
import {
  addSecurityHeaders,
  answerCompression,
  keptPageForms,
  revalidate,
  sendPageForm,
  staticOptions,
} from 'site-server';

const dist = new URL('dist/', import.meta.url).pathname;

export async function startFloor(port: number, host = '127.0.0.1'): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(process.env.LOG_LEVEL ?? 'warn'),
    ...httpServerOptions({ requestTimeoutMs: 10_000 }),
  });
  logEachRequest(app);
  await app.register(compress, answerCompression);
  addSecurityHeaders(app, []);
  await app.register(fastifyStatic, { ...staticOptions, root: `${dist}assets`, prefix: '/assets/' });
  const kept = keptPageForms({ log: app.log });
  for (const [path, file] of [
    ['/', 'index.html'],
    ['/plain', 'plain.html'],
  ] as const) {
    const html = readFileSync(`${dist}${file}`, 'utf8');
    app.get(path, { compress: false }, async (request, reply) => {
      reply.header('Cache-Control', revalidate).type('text/html; charset=utf-8');
      return sendPageForm(request, reply, await kept.formsOf(path, html, '', () => html));
    });
  }
  await app.listen({ port, host });
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 4350);
  await startFloor(port);
  console.log(`React floor at http://127.0.0.1:${port}/ and the HTML floor at /plain`);
}

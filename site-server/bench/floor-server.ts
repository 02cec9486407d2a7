import { readFileSync } from 'node:fs';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { httpServerOptions, logEachRequest, loggerOptions } from 'api';
import { addSecurityHeaders, answerCompression } from '../src/http/security-headers.ts';
import { siteOrigins } from '../src/http/site-origin.ts';

/**
 * The server floor: a bare Fastify, logger off, sending bytes it holds in memory. `pages.json` (argv[2]) maps a path
 * to its brotli and identity bytes as the site server sent them; what the site server does beyond this is its cost.
 *
 * FLOOR_LAYERS adds the site server's layers one at a time, made as the site server makes them, so that `pnpm
 * bench:pages` can say what each costs: `headers` (Helmet's security headers and CSP, the transport headers),
 * `host` (the Host check and the site's origin), `log` (request ids and the one log line per request, at info),
 * `cookies` (the cookie parser that previews and form outcomes read), `compress` (the compression plugin the other
 * answers need; page routes skip its hook, as the site's do).
 */
const pages = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, { br: string; identity: string }>;
const layers = new Set((process.env.FLOOR_LAYERS ?? '').split(',').filter(Boolean));

const app = Fastify({
  logger: layers.has('log') ? loggerOptions('info') : false,
  ...(layers.has('log') ? httpServerOptions({ requestTimeoutMs: 10_000 }) : {}),
});
if (layers.has('log')) logEachRequest(app);
if (layers.has('compress')) await app.register(compress, answerCompression);
if (layers.has('headers')) addSecurityHeaders(app, []);
if (layers.has('cookies')) await app.register(cookie);
const { withOrigin } = siteOrigins({ siteUrl: process.env.PUBLIC_SITE_URL });

for (const [path, forms] of Object.entries(pages)) {
  const br = Buffer.from(forms.br, 'base64');
  const identity = Buffer.from(forms.identity, 'base64');
  const send = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('Content-Type', 'text/html; charset=utf-8');
    if ((request.headers['accept-encoding'] ?? '').includes('br'))
      return reply.header('Content-Encoding', 'br').send(br);
    return reply.send(identity);
  };
  const handler = layers.has('host') ? withOrigin((_origin, request, reply) => send(request, reply)) : send;
  // As on the site's page routes, which compress their pages themselves.
  app.get(path, layers.has('compress') ? { compress: false } : {}, handler);
}
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });

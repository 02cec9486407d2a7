import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * The server floor: a bare Fastify, logger off, sending bytes it holds in memory. `pages.json` (argv[2]) maps a path
 * to its brotli and identity bytes as the site server sent them; what the site server does beyond this is its cost.
 */
const pages = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, { br: string; identity: string }>;
const app = Fastify({ logger: false });
for (const [path, forms] of Object.entries(pages)) {
  const br = Buffer.from(forms.br, 'base64');
  const identity = Buffer.from(forms.identity, 'base64');
  app.get(path, (request, reply) => {
    reply.header('Content-Type', 'text/html; charset=utf-8');
    if ((request.headers['accept-encoding'] ?? '').includes('br'))
      return reply.header('Content-Encoding', 'br').send(br);
    return reply.send(identity);
  });
}
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });

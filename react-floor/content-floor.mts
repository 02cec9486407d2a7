/**
 * The content floor: a page of the site as its server sends it, less what the composition adds to it (the import
 * map, the inline scripts, the data the shell reads, the modulepreload links), served by the site server's page path
 * (the same three compressed forms, ETag and headers) on a port of its own. Every other request (images, fonts,
 * styles) goes to the site as it came and comes back as the site answered. The page's own markup and styles are left:
 * its first paint is what the page's content costs, and the site's over it what the composition adds.
 */
import http from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { keptPageForms, sendPageForm } from 'site-server';

/** The page without the composition's parts; structured data (`application/ld+json`) is content and stays. */
export function withoutComposition(html: string): string {
  return html
    .replace(/<script(?![^>]*type="application\/ld\+json")[^>]*>[\s\S]*?<\/script>/g, '')
    .replace(/<link rel="modulepreload"[^>]*>/g, '');
}

/** The headers of the one form of a page sent (and of the connection), which the page path sets itself. */
const formHeaders = new Set([
  'content-length',
  'content-encoding',
  'etag',
  'vary',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'date',
]);

/** What a navigation asks for: the page, rather than one of its files. */
const isNavigation = (accept: string | undefined) => accept?.startsWith('text/html') ?? false;

export async function startContentFloor(port: number, site: string, host = '127.0.0.1'): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  const kept = keptPageForms({ log: app.log });
  // Each page fetched from the site once (a bench's pages do not change while it runs), so that its answer here is
  // as quick as the site's own.
  const pages = new Map<string, Promise<{ status: number; headers: [string, string][]; html: string }>>();
  const pageOf = (url: string) => {
    if (!pages.has(url)) {
      pages.set(
        url,
        fetch(`${site}${url}`).then(async (answer) => ({
          status: answer.status,
          // Every header the site sent, its security headers too (the React floor sends them as well): without
          // Cross-Origin-Opener-Policy the same page painted here 0.15x of the floor's first paint sooner.
          headers: [...answer.headers].filter(([name]) => !formHeaders.has(name)),
          html: withoutComposition(await answer.text()),
        })),
      );
    }
    return pages.get(url)!;
  };
  app.get('/*', async (request, reply) => {
    if (isNavigation(request.headers.accept)) {
      const { status, headers, html } = await pageOf(request.url);
      for (const [name, value] of headers) reply.header(name, value);
      reply.code(status);
      return sendPageForm(request, reply, await kept.formsOf(request.url, html, '', () => html));
    }
    const headers = { ...request.headers };
    delete headers.host;
    return new Promise((resolve, reject) => {
      const passed = http.request(`${site}${request.url}`, { headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => {
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined && name !== 'transfer-encoding' && name !== 'connection') reply.header(name, value);
          }
          resolve(reply.code(answer.statusCode ?? 502).send(Buffer.concat(body)));
        });
        answer.on('error', reject);
      });
      passed.on('error', reject);
      passed.end();
    });
  });
  await app.listen({ port, host });
  return app;
}

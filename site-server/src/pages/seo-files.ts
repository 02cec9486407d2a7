import type { FastifyInstance } from 'fastify';
import { pageRoutes } from '@gift/content';
import type { siteOrigins } from '../http/site-origin.ts';

/** robots.txt and the sitemap of the pages the route table lists for search engines, named by the site's origin. */
export function serveSeoFiles(app: FastifyInstance, withOrigin: ReturnType<typeof siteOrigins>['withOrigin']) {
  app.get(
    '/robots.txt',
    withOrigin((origin, _request, reply) =>
      reply.type('text/plain; charset=utf-8').send(`User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`),
    ),
  );

  // The pages the route table lists for search engines.
  const listedPaths = pageRoutes.filter((route) => route.inSitemap).map((route) => route.path);
  app.get(
    '/sitemap.xml',
    withOrigin((origin, _request, reply) => {
      const urls = listedPaths.map((path) => `  <url><loc>${origin}${path}</loc></url>`).join('\n');
      return reply
        .type('application/xml; charset=utf-8')
        .send(
          `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`,
        );
    }),
  );
}

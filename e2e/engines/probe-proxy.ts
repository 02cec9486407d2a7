import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of the site for the cross-engine journeys, because classic WebDriver (WebKit's) can neither read a
 * page's console nor change what the network answers. It adds to each page, first in its head, a same-origin script
 * (allowed by the page's own policy, `script-src 'self'`) that keeps every error the page meets: uncaught errors and
 * rejections, `console.error`, a resource that failed to load (a file refused for its integrity), a policy
 * violation; the journeys read them as `window.__probe`. And it answers what a journey asks of it: a file of a
 * remote changed on its way (tampered with), a file answered late, or the API failing.
 */
const probePath = '/__engine-probe.js';
const probe = `(() => {
  const errors = (window.__probe = []);
  const keep = (text) => errors.push(String(text).slice(0, 500));
  addEventListener('error', (event) => {
    const target = event.target;
    keep(target && target !== window ? 'failed to load ' + (target.src || target.href || target.tagName) : 'error: ' + event.message);
  }, true);
  addEventListener('unhandledrejection', (event) => keep('rejection: ' + ((event.reason && event.reason.message) || event.reason)));
  addEventListener('securitypolicyviolation', (event) => keep('policy: ' + event.violatedDirective + ' ' + event.blockedURI));
  const original = console.error;
  console.error = (...parts) => { keep('console: ' + parts.map(String).join(' ')); original.apply(console, parts); };
})();`;

export async function probeProxy(sitePort: number) {
  let tamper: { path: RegExp; change: (text: string) => string } | undefined;
  let failing: { path: string; status: number } | undefined;
  let late: { path: RegExp; ms: number } | undefined;

  const server = createServer((request, response) => {
    if (request.url === probePath) {
      response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      response.end(probe);
      return;
    }
    if (late?.path.test(request.url ?? '')) {
      const { ms } = late;
      late = undefined;
      setTimeout(() => pass(request, response), ms);
      return;
    }
    pass(request, response);
  });

  function pass(request: IncomingMessage, response: ServerResponse) {
    if (failing && request.url?.startsWith(failing.path)) {
      request.resume();
      response.writeHead(failing.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'Service Unavailable', message: 'The journey made it fail.' }));
      return;
    }
    const upstream = forward(
      {
        host: '127.0.0.1',
        port: sitePort,
        method: request.method,
        path: request.url,
        // Plain bytes, so that a page or a file can be changed on its way.
        headers: { ...request.headers, 'accept-encoding': 'identity' },
      },
      (answer) => {
        const type = String(answer.headers['content-type'] ?? '');
        const changed = answer.statusCode === 200 && tamper?.path.test(request.url ?? '');
        if (!type.startsWith('text/html') && !changed) {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks).toString('utf8');
          if (changed) body = tamper!.change(body);
          else body = body.replace(/<head([^>]*)>/, (head) => `${head}<script src="${probePath}"></script>`);
          const headers = { ...answer.headers };
          delete headers['content-length'];
          delete headers.etag;
          response.writeHead(answer.statusCode ?? 502, headers);
          response.end(body);
        });
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Files whose path matches `path` are changed by `change` on their way, until `tamper(undefined)`. */
    tamper(path?: RegExp, change: (text: string) => string = (text) => text) {
      tamper = path && { path, change };
    },
    /** The next request to `path` answered `ms` late (a file on a slow phone's line). */
    delay(path: RegExp, ms: number) {
      late = { path, ms };
    },
    /** Requests to `path` answered `status` by the proxy, until `fail(undefined)`. */
    fail(path?: string, status = 503) {
      failing = path ? { path, status } : undefined;
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

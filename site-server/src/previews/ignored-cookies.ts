import type { FastifyRequest } from 'fastify';

/**
 * Says that a request's override or preview cookie was ignored: its remote and why, never its value (anyone can send
 * one, of any length, and a preview's value is a grant), and once per client, remote and reason a minute, however
 * many requests bring it.
 */
export function ignoredCookieLog(message: string) {
  let minute = 0;
  const said = new Set<string>();
  return (request: FastifyRequest, remote: string, reason: string) => {
    const now = Math.floor(Date.now() / 60_000);
    if (now !== minute) {
      said.clear();
      minute = now;
    }
    const key = `${request.ip}\u0000${remote}\u0000${reason}`;
    if (said.has(key) || said.size >= 10_000) return;
    said.add(key);
    request.log.warn({ remote, reason }, message);
  };
}

import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export type PageEncoding = 'br' | 'gzip' | 'identity';

/** One form of a page as it is sent: its bytes and their strong ETag. */
interface PageForm {
  body: Buffer;
  etag: string;
}

export type PageForms = Record<PageEncoding, PageForm>;

const formOf = (body: Buffer): PageForm => ({
  body,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/**
 * A page's three forms: brotli at its highest quality and gzip at its highest level (done once per build of the page,
 * in the thread pool, so the cost is paid once and never on the event loop), and the bytes as they are.
 */
export async function compressPage(html: string): Promise<PageForms> {
  const identity = Buffer.from(html);
  const [br, gz] = await Promise.all([
    brotli(identity, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
    gzipped(identity, { level: zlib.Z_BEST_COMPRESSION }),
  ]);
  return { br: formOf(br), gzip: formOf(gz), identity: formOf(identity) };
}

/**
 * Pages kept in memory in their three forms: one entry per page and origin, made again only when what it was made
 * from changes (the page's HTML, or the manifest element it carries), and made once however many requests arrive
 * while it is being made. At most `maxEntries` are kept, of at most `maxBytes` in all (a Host header of a developer's
 * machine may name any port): the oldest goes first.
 */
export function keptPageForms({
  log,
  maxEntries = 1000,
  maxBytes = 64 * 1024 * 1024,
}: {
  log: FastifyBaseLogger;
  maxEntries?: number;
  maxBytes?: number;
}) {
  // `bytes`: the three forms' once made (the page's own length until then).
  const kept = new Map<string, { source: string; element: string; forms: Promise<PageForms>; bytes: number }>();
  let keptBytes = 0;
  const remove = (key: string) => {
    keptBytes -= kept.get(key)?.bytes ?? 0;
    kept.delete(key);
  };
  const evict = () => {
    while (kept.size > 1 && (kept.size > maxEntries || keptBytes > maxBytes)) remove(kept.keys().next().value!);
  };
  return {
    /** How many pages are kept, and their bytes in all three forms. */
    size: () => ({ pages: kept.size, bytes: keptBytes }),
    /**
     * The forms of the page `key` made from `source` and `element` (compared by identity first: the same string
     * objects come back until their file or the manifest changes); `make` gives the HTML to send.
     */
    formsOf(key: string, source: string, element: string, make: () => string): Promise<PageForms> {
      const known = kept.get(key);
      if (known && known.source === source && known.element === element) return known.forms;
      const started = performance.now();
      const html = make();
      const forms = compressPage(html);
      const entry = { source, element, forms, bytes: html.length };
      forms.then(
        ({ br, gzip, identity }) => {
          const bytes = [br, gzip, identity].map((form) => form.body.length);
          if (kept.get(key) === entry) {
            keptBytes += bytes[0]! + bytes[1]! + bytes[2]! - entry.bytes;
            entry.bytes = bytes[0]! + bytes[1]! + bytes[2]!;
            evict();
          }
          log.info(
            { page: key.split('\n')[1], ms: Math.round(performance.now() - started), bytes },
            'Page kept in memory, compressed',
          );
        },
        () => {
          if (kept.get(key) === entry) remove(key);
        },
      );
      remove(key);
      kept.set(key, entry);
      keptBytes += entry.bytes;
      evict();
      return forms;
    },
  };
}

const encodings: PageEncoding[] = ['br', 'gzip', 'identity'];

/** The choice for each `Accept-Encoding` seen lately: browsers send a handful of spellings, each a million times. */
const chosen = new Map<string, PageEncoding>();

/** The best form a request's `Accept-Encoding` allows: brotli, then gzip, else the bytes as they are. */
export function encodingFor(request: FastifyRequest): PageEncoding {
  const accepted = request.headers['accept-encoding'];
  if (!accepted) return 'identity';
  let encoding = chosen.get(accepted);
  if (encoding === undefined) {
    encoding = (negotiate(accepted, encodings) as PageEncoding | null) ?? 'identity';
    if (chosen.size >= 100) chosen.clear();
    chosen.set(accepted, encoding);
  }
  return encoding;
}

const varyByEncoding = (reply: FastifyReply) =>
  reply.header('Vary', [reply.getHeader('Vary'), 'Accept-Encoding'].filter(Boolean).join(', '));

/**
 * A page made for one request (a share link, a form's outcome, a preview) and never kept: compressed now, in the form
 * the request accepts, at the quality the server's other answers get. Page routes skip the compression hook, which
 * would otherwise look at every kept page again for nothing.
 */
export async function sendPageOnce(request: FastifyRequest, reply: FastifyReply, html: string) {
  const encoding = encodingFor(request);
  varyByEncoding(reply);
  if (encoding === 'identity') return reply.send(html);
  const body =
    encoding === 'br'
      ? await brotli(html, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT },
        })
      : await gzipped(html);
  return reply.header('Content-Encoding', encoding).send(body);
}

/** Whether `If-None-Match` names `etag` (the weak comparison HTTP asks of it), or is `*`. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends a kept page in the form the request accepts, with its ETag; a request that already has those bytes gets a
 * 304 with no body. `Vary: Accept-Encoding` joins what the page already varies by.
 */
export function sendPageForm(request: FastifyRequest, reply: FastifyReply, forms: PageForms) {
  const encoding = encodingFor(request);
  const form = forms[encoding];
  reply.header('ETag', form.etag);
  varyByEncoding(reply);
  if (encoding !== 'identity') reply.header('Content-Encoding', encoding);
  if (reply.statusCode === 200 && matches(request.headers['if-none-match'], form.etag)) {
    return reply.code(304).removeHeader('Content-Type').send();
  }
  return reply.send(form.body);
}

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormOutcome } from '@gift/content';

/** What a browser sends for `<form method="post">`: the same routes take it beside JSON. */
export const formContentType = 'application/x-www-form-urlencoded';

export const isFormPost = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').toLowerCase().startsWith(formContentType);

/** A urlencoded body's fields; a name sent twice becomes a list, which every body schema refuses. */
export function parseFormBody(body: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) {
    const earlier = fields[name];
    fields[name] = earlier === undefined ? value : [earlier, value].flat();
  }
  return fields;
}

/**
 * A field as the visitor typed it, for giving back: a list or a missing field becomes text, at most `maxLength`
 * characters as the body schemas count them (code points: an emoji is one).
 */
export function typedText(value: unknown, maxLength: number): string {
  const text = Array.isArray(value) ? String(value[0] ?? '') : typeof value === 'string' ? value : '';
  return text.length <= maxLength ? text : Array.from(text).slice(0, maxLength).join('');
}

const cookieName = 'form-outcome';
// Browsers keep about 4 KiB per cookie: the outcome is split over a few, which stay far below Node's 16 KiB of headers.
const chunkLength = 3500;
const maxChunks = 4;
const lifetimeSeconds = 60;

const encode = (outcome: FormOutcome) => deflateRawSync(JSON.stringify(outcome)).toString('base64url');

function cookie(request: FastifyRequest, page: string, name: string, value: string, maxAge: number) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  return `${name}=${value}; Path=${page}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/**
 * Post/Redirect/Get: a 303 to the form's page, with the outcome in short-lived cookies that only that page receives,
 * so that a reload or Back never posts again and nothing the visitor typed lands in an address.
 */
export function redirectWithOutcome(request: FastifyRequest, reply: FastifyReply, page: string, outcome: FormOutcome) {
  const encoded = encode(outcome);
  const chunks = encoded.match(new RegExp(`.{1,${chunkLength}}`, 'g')) ?? [];
  if (chunks.length > maxChunks) throw new Error('A form outcome is larger than its cookies can hold');
  const cookies = chunks.map((chunk, index) => cookie(request, page, `${cookieName}.${index}`, chunk, lifetimeSeconds));
  return reply
    .code(303)
    .header('Location', page)
    .header('Set-Cookie', cookies)
    .header('Cache-Control', 'no-store')
    .send();
}

function cookiesOf(request: FastifyRequest): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) found.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return found;
}

/** The outcome a form post left for this page, if any; a damaged or foreign cookie counts as none. */
export function readOutcome(request: FastifyRequest): FormOutcome | undefined {
  const cookies = cookiesOf(request);
  let encoded = '';
  for (let index = 0; index < maxChunks && cookies.has(`${cookieName}.${index}`); index++) {
    encoded += cookies.get(`${cookieName}.${index}`);
  }
  if (!encoded) return undefined;
  try {
    const outcome = JSON.parse(inflateRawSync(Buffer.from(encoded, 'base64url')).toString('utf8')) as FormOutcome;
    return typeof outcome === 'object' && outcome !== null && typeof outcome.form === 'string' ? outcome : undefined;
  } catch {
    return undefined;
  }
}

/** Forgets the outcome once shown: a reload shows the page as it is. */
export function clearOutcome(request: FastifyRequest, reply: FastifyReply, page: string) {
  const names = [...cookiesOf(request).keys()].filter((name) => name.startsWith(`${cookieName}.`));
  if (names.length)
    reply.header(
      'Set-Cookie',
      names.map((name) => cookie(request, page, name, '', 0)),
    );
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A plain page for a form post that cannot be answered on the form's page (a cross-site post). */
export function refusalPage(title: string, message: string, back: { href: string; label: string }) {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
  </head>
  <body>
    <main>
      <h1>${escapeHtml(title)}</h1>
      <p>${escapeHtml(message)}</p>
      <p><a href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p>
    </main>
  </body>
</html>
`;
}

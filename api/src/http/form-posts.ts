import { deflateRawSync, inflateRawSync } from 'node:zlib';
import fastifyCookie from '@fastify/cookie';
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

// Browsers keep about 4 KiB per cookie: the outcome is split over a few, which stay far below Node's 16 KiB of headers.
const chunkLength = 3500;
const maxChunks = 4;
const lifetimeSeconds = 60;

/**
 * On https the cookies carry the `__Host-` prefix: the browser takes them only from this host, over https, for the
 * whole site (the prefix requires Path=/), so neither a sibling subdomain nor a plain-http page can plant one. On
 * plain http (a developer's machine) only the form's page receives them.
 */
const cookieNameOf = (request: Pick<FastifyRequest, 'protocol'>) =>
  request.protocol === 'https' ? '__Host-form-outcome' : 'form-outcome';

const cookieOptions = (request: Pick<FastifyRequest, 'protocol'>, page: string, maxAge: number) =>
  ({
    path: request.protocol === 'https' ? '/' : page,
    maxAge,
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
  }) as const;

/** What a form post leaves for its page: the page it is for and the outcome, signed together. */
interface SignedOutcome {
  page: string;
  outcome: FormOutcome;
}

/**
 * The outcome of a native form post, carried to its page (Post/Redirect/Get) in short-lived cookies signed with
 * COOKIE_SECRET (HMAC-SHA256, by @fastify/cookie's signer: the first secret signs, each one given verifies, so that
 * a secret can be replaced as the webhook secrets are). An unsigned, altered or foreign cookie shows nothing. Needs
 * @fastify/cookie registered (the API registers it when its host has not).
 */
export function formOutcomeCookies(secrets: string[]) {
  const signer = fastifyCookie.signerFactory(secrets);

  return {
    /**
     * A 303 to the form's page, with the outcome in cookies that are gone within a minute, so that a reload or Back
     * never posts again and nothing the visitor typed lands in an address.
     */
    redirect(request: FastifyRequest, reply: FastifyReply, page: string, outcome: FormOutcome) {
      const payload: SignedOutcome = { page, outcome };
      const signed = signer.sign(deflateRawSync(JSON.stringify(payload)).toString('base64url'));
      const chunks = signed.match(new RegExp(`.{1,${chunkLength}}`, 'g')) ?? [];
      if (chunks.length > maxChunks) throw new Error('A form outcome is larger than its cookies can hold');
      const name = cookieNameOf(request);
      chunks.forEach((chunk, index) =>
        reply.setCookie(`${name}.${index}`, chunk, cookieOptions(request, page, lifetimeSeconds)),
      );
      return reply.code(303).header('Location', page).header('Cache-Control', 'no-store').send();
    },

    /** The outcome a form post left for `page`, if any; a damaged, unsigned or altered cookie counts as none. */
    read(request: Pick<FastifyRequest, 'cookies' | 'protocol'>, page: string): FormOutcome | undefined {
      const cookies = request.cookies;
      const name = cookieNameOf(request);
      let signed = '';
      for (let index = 0; index < maxChunks && cookies[`${name}.${index}`] !== undefined; index++) {
        signed += cookies[`${name}.${index}`];
      }
      if (!signed) return undefined;
      const checked = signer.unsign(signed);
      if (!checked.valid) return undefined;
      try {
        const found = JSON.parse(inflateRawSync(Buffer.from(checked.value, 'base64url')).toString('utf8'));
        return found?.page === page && typeof found.outcome?.form === 'string' ? found.outcome : undefined;
      } catch {
        return undefined;
      }
    },

    /** Forgets the outcome once shown: a reload shows the page as it is. */
    clear(request: FastifyRequest, reply: FastifyReply, page: string) {
      const name = cookieNameOf(request);
      for (const cookie of Object.keys(request.cookies)) {
        if (cookie.startsWith(`${name}.`)) reply.clearCookie(cookie, cookieOptions(request, page, 0));
      }
    },
  };
}

export type FormOutcomeCookies = ReturnType<typeof formOutcomeCookies>;

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

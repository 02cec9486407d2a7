/**
 * A short page in the site's colours for answers that are not pages of the site (an error on our side, a preview link
 * that cannot be honoured): no scripts, nothing from a build, so it shows whatever else is broken.
 */
export const plainPage = (title: string, paragraphs: string[]) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title></head><body style="font:1rem/1.6 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d1726;background:#fff8f3"><h1 style="font-size:1.5rem;color:#8c0d3c">${title}</h1>${paragraphs
    .map((text) => `<p>${text}</p>`)
    .join('')}<p><a href="/" style="color:#8c0d3c">Go to the home page</a></p></body></html>`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** What a visitor sees for any 5xx: the status and a reference to quote, never the error's message, a path or a stack. */
export const serverErrorPage = (status: number, reference: string) =>
  plainPage('Something went wrong on our side', [
    `The page could not be shown (error ${status}). Please try again in a moment.`,
    `If it keeps happening, tell us this reference: <code>${escapeHtml(reference)}</code>.`,
  ]);

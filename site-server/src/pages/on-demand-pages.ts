/**
 * Pages rendered on request with the remote build the manifest names now, kept for the next visitors: one render
 * per page and build, however many requests arrive while it runs. A page keeps only its newest build's HTML, so
 * what is kept is bounded by the number of pages; a failed render is not kept, and the next request tries again.
 */
export function onDemandPages() {
  const kept = new Map<string, { build: string; html: Promise<string | undefined> }>();
  return (page: string, build: string, render: () => Promise<string | undefined>): Promise<string | undefined> => {
    const known = kept.get(page);
    if (known?.build === build) return known.html;
    const html = render().then(
      (rendered) => {
        if (rendered === undefined) forget(page, html);
        return rendered;
      },
      (error: unknown) => {
        forget(page, html);
        throw error;
      },
    );
    kept.set(page, { build, html });
    return html;
  };

  function forget(page: string, html: Promise<string | undefined>) {
    if (kept.get(page)?.html === html) kept.delete(page);
  }
}

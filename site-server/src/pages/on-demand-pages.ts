import type { FastifyBaseLogger } from 'fastify';

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

/**
 * Logs a page's server render failing: the first time with its error, then at the 10th, 100th, ... time with the
 * count, per route and version (a render that fails once fails for every address of them, and a flood of invented
 * addresses must not become a flood of stacks). The last 100 routes and versions are counted.
 */
export function repeatedFailures() {
  const failures = new Map<string, number>();
  return (log: Pick<FastifyBaseLogger, 'error'>, route: string, version: string | undefined, error: unknown) => {
    const key = `${route} ${version}`;
    const count = (failures.get(key) ?? 0) + 1;
    failures.delete(key);
    failures.set(key, count);
    if (failures.size > 100) failures.delete(failures.keys().next().value!);
    if (count === 1) log.error({ err: error, path: route, version }, 'Rendering a page on the server failed');
    else if (/^10+$/.test(String(count)))
      log.error(
        { path: route, version, failures: count, why: error instanceof Error ? error.message : String(error) },
        `Rendering a page on the server failed ${count} times (the browser renders it)`,
      );
  };
}

import { describe, expect, it } from 'vitest';
import { onDemandPages, repeatedFailures } from './on-demand-pages.ts';

/** A render that waits until released, counting how often each page and build is rendered. */
function slowRender() {
  const renders: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const render = async (page: string, build: string) => {
    renders.push(`${page} ${build}`);
    await released;
    return `<html>${page} with ${build}</html>`;
  };
  return { renders, render, release };
}

describe('pages rendered on demand', () => {
  it('renders a page once for many concurrent requests, and keeps it for the next visitors', async () => {
    const { renders, render, release } = slowRender();
    const kept = onDemandPages();
    const page = (path: string, build: string) => kept(path, build, () => render(path, build));
    const answers = Array.from({ length: 20 }, () => page('/vendor', 'v2'));
    release();
    expect(new Set(await Promise.all(answers))).toEqual(new Set(['<html>/vendor with v2</html>']));
    expect(await page('/vendor', 'v2')).toBe('<html>/vendor with v2</html>');
    expect(renders).toEqual(['/vendor v2']);
  });

  it('renders again when the manifest names another build, and for each page on its own', async () => {
    const { renders, render, release } = slowRender();
    release();
    const kept = onDemandPages();
    const page = (path: string, build: string) => kept(path, build, () => render(path, build));
    await page('/vendor', 'v2');
    await page('/privacy', 'v2');
    expect(await page('/vendor', 'v3')).toBe('<html>/vendor with v3</html>');
    expect(await page('/vendor', 'v2')).toBe('<html>/vendor with v2</html>');
    expect(renders).toEqual(['/vendor v2', '/privacy v2', '/vendor v3', '/vendor v2']);
  });

  it('keeps no failed render: the next request tries again', async () => {
    let calls = 0;
    const kept = onDemandPages();
    const page = (path: string, build: string) =>
      kept(path, build, async () => {
        calls += 1;
        if (calls === 1) throw new Error('the server build could not be imported');
        return calls === 2 ? undefined : '<html>ok</html>';
      });
    await expect(page('/vendor', 'v2')).rejects.toThrow('could not be imported');
    expect(await page('/vendor', 'v2')).toBeUndefined();
    expect(await page('/vendor', 'v2')).toBe('<html>ok</html>');
    expect(calls).toBe(3);
  });
});

describe('a server render that keeps failing', () => {
  it('is logged once with its error, then at the 10th, 100th and 1,000th time with the count, per route and version', () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const log = { error: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) };
    const failed = repeatedFailures();
    const error = new Error('the page threw');
    for (let n = 0; n < 1_000; n++) failed(log as never, '/share-location/*', '1.2.0', error);
    failed(log as never, '/share-location/*', '1.3.0', error);
    expect(lines.map(({ fields }) => [fields.version, fields.failures ?? 1])).toEqual([
      ['1.2.0', 1],
      ['1.2.0', 10],
      ['1.2.0', 100],
      ['1.2.0', 1_000],
      ['1.3.0', 1],
    ]);
    expect(lines[0]!.fields.err).toBe(error);
    expect(lines[3]!.message).toContain('failed 1000 times');
    expect(lines[3]!.fields).not.toHaveProperty('err');
  });
});

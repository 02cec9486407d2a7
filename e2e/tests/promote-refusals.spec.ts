import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { promote } from 'site-server/releases';
import { expect, liveVersion, refusedInProcess, test } from '../checks-in-process.ts';
import { promoteTimeout, publishChanged, releaseCommand, rewrite, rewritePage } from '../release-commands.ts';

/**
 * The release checks refusing candidates of the legal remote broken the way releases break: a page that throws in the
 * browser only, one that scrolls sideways, one that moves while it loads, one that throws in the server render, a
 * build against another major of React, one 30% heavier, one that breaks another team's page. The manifest stays as
 * it was, and the output says why. The verdicts are reached in this process, with the worker's browser and one live
 * site (checks-in-process.ts); the last journey runs `pnpm promote` end to end, as a team does, and `pnpm releases`
 * lists every verdict. (promote.spec.ts has the candidates that go live; each file deploys on its own.)
 */
test.describe.configure({ mode: 'serial' });

test('a page that throws in the browser only is refused: route, viewport and the error named', async ({ releases }) => {
  test.setTimeout(promoteTimeout(1));
  const version = await publishChanged('legal', releases.env, (dist) =>
    rewritePage(dist, 'privacy-page', (code) => `throw new Error("privacy page broke in the browser");${code}`),
  );
  const printed = await refusedInProcess(releases, version);
  expect(printed).toMatch(/^ {2}ok +server render: /m);
  expect(printed).toMatch(
    /^Refused: browser 375 px: \/privacy: (page|console) error: .*privacy page broke in the browser$/m,
  );
  expect(printed).toMatch(/^ {2}FAIL browser 1280 px: \/privacy: /m);
});

test('a page that scrolls sideways is refused, with how far it sticks out', async ({ releases }) => {
  test.setTimeout(promoteTimeout(1));
  const version = await publishChanged('legal', releases.env, (dist) => {
    for (const name of readdirSync(join(dist, 'assets')).filter((file) => file.endsWith('.css'))) {
      rewrite(join(dist, 'assets', name), (css) => `${css}\nmain h1{min-width:1500px}`);
    }
  });
  const printed = await refusedInProcess(releases, version);
  expect(printed).toMatch(
    /^Refused: browser 375 px: \/privacy: scrolls sideways: the page is \d+ px wider than the screen$/m,
  );
  expect(printed).toMatch(/^ {2}FAIL browser 1280 px: \/privacy: scrolls sideways/m);
});

test('a page that moves by itself while it loads is refused, with how much it moved', async ({ releases }) => {
  test.setTimeout(promoteTimeout(1));
  // A banner pushed in above the text once the page runs, as a late notice or ad would.
  const version = await publishChanged('legal', releases.env, (dist) =>
    rewritePage(
      dist,
      'privacy-page',
      (code) =>
        `const late = () => { if (document.documentElement.dataset.ready !== 'true') return setTimeout(late, 50); ` +
        `const banner = document.createElement('div'); banner.style.height = '400px'; document.body.prepend(banner); };` +
        `late();${code}`,
    ),
  );
  const printed = await refusedInProcess(releases, version);
  expect(printed).toMatch(
    /^Refused: browser 375 px: \/privacy: moves by itself while it loads: layout shift \d\.\d{3} \(at most 0\.1\)$/m,
  );
});

test('a page that throws in the server render is refused', async ({ releases }) => {
  test.setTimeout(promoteTimeout(1));
  const version = await publishChanged('legal', releases.env, (dist) =>
    rewrite(
      join(dist, 'ssr', 'privacy-page.js'),
      (code) => `throw new Error("privacy page broke on the server");\n${code}`,
    ),
  );
  const printed = await refusedInProcess(releases, version);
  expect(printed).toMatch(/^Refused: server render: \/privacy: privacy page broke on the server$/m);
});

test('a build against another major of React is refused with both versions named', async ({ releases }) => {
  test.setTimeout(promoteTimeout(1));
  const version = await publishChanged('legal', releases.env, (dist) =>
    rewrite(join(dist, 'mf-manifest.json'), (text) => {
      const federation = JSON.parse(text) as { shared: { name: string; version: string; requiredVersion: string }[] };
      for (const shared of federation.shared.filter((module) => module.name.startsWith('react'))) {
        shared.version = '18.3.1';
        shared.requiredVersion = '^18.3.1';
      }
      return JSON.stringify(federation);
    }),
  );
  const printed = await refusedInProcess(releases, version);
  expect(printed).toMatch(
    /^Refused: shared modules: react: the shell provides 19\.\d+\.\d+, the candidate was built with 18\.3\.1 and requires \^18\.3\.1;/m,
  );
});

test('a build 30% heavier is refused unless --allow-heavier; the figure is printed either way', async ({
  releases,
}) => {
  test.setTimeout(promoteTimeout(2));
  const version = await publishChanged('legal', releases.env, (dist) => {
    // Incompressible bytes, about a third of what the remote's scripts on its routes weigh in Brotli (its page
    // modules, which the pages run: issue 79), in the privacy page's files (its federation chunk too, for a link).
    const modules = JSON.parse(readFileSync(join(dist, 'page-modules.json'), 'utf8')) as Record<
      string,
      { file: string; imports: string[] }
    >;
    const files = new Set(Object.values(modules).flatMap(({ file, imports }) => [file, ...imports]));
    const routesBytes = [...files].reduce(
      (sum, file) => sum + brotliCompressSync(readFileSync(join(dist, file))).length,
      0,
    );
    const padding = randomBytes(Math.round(routesBytes * 0.3)).toString('base64');
    rewritePage(dist, 'privacy-page', (code) => `${code}\nexport const padding = "${padding}";\n`);
  });
  const printed = await refusedInProcess(releases, version);
  const change = Number(/^Refused: weight: .* live [\d.]+ KiB: \+([\d.]+)% \(allowed \+10%\)$/m.exec(printed)![1]);
  expect(change).toBeGreaterThan(25);
  expect(change).toBeLessThan(45);

  const lines: string[] = [];
  await promote(releases.settings, 'legal', version, {
    allowHeavier: true,
    lent: releases.lent,
    log: (line) => lines.push(line),
  });
  expect(lines.join('\n')).toMatch(
    /^ {2}ok +weight: .*: \+[\d.]+% \(allowed \+10%\), heavier allowed \(--allow-heavier\)$/m,
  );
  expect(liveVersion(releases.settings, 'legal')).toBe(version);
});

test('pnpm promote, end to end: a candidate that breaks another team’s page (the control route) is refused, though its own pages pass', async ({
  releases,
}) => {
  test.setTimeout(promoteTimeout(1));
  // Its server build changes the React every server build renders with: the consumer's carousel needs what it broke.
  // So it runs as a team runs it, in a process of its own: checked here, it would break this worker's React.
  const { env } = releases;
  const version = await publishChanged('legal', env, (dist) =>
    rewrite(
      join(dist, 'ssr', 'privacy-page.js'),
      (code) =>
        "import { createRequire as breakShared } from 'node:module';\n" +
        "breakShared(import.meta.url)('react').Children.count = () => { throw new Error('legal broke React'); };\n" +
        code,
    ),
  );
  const before = readFileSync(env.REMOTES_MANIFEST!, 'utf8');
  const live = liveVersion(releases.settings, 'legal');
  const { code, printed } = await releaseCommand(['promote', 'legal', version], env);
  expect(code, printed).toBe(1);
  expect(readFileSync(env.REMOTES_MANIFEST!, 'utf8')).toBe(before);
  expect(printed).toContain(`legal ${version} did not go live; the manifest is as it was (${live} is still live)`);
  expect(printed).toMatch(/^ {2}ok +server render: \/privacy, \/terms/m);
  expect(printed).toMatch(/^Refused: browser (375|1280) px: \/: /m);

  // pnpm releases shows every verdict, those reached in this process too.
  const listed = await releaseCommand(['releases', 'legal'], env);
  expect(listed.code, listed.printed).toBe(0);
  const list = listed.printed;
  expect(list).toMatch(/^ {2}\S+ {2}refused: browser 375 px: \/privacy: .*privacy page broke in the browser/m);
  expect(list).toMatch(/^ {2}\S+ {2}refused: server render: \/privacy: privacy page broke on the server/m);
  expect(list).toMatch(/^ {2}\S+ {2}refused: shared modules: react: /m);
});

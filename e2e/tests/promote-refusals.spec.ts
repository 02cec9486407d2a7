import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promoteJourney, rewrite } from '../promote-journey.ts';
import { privacyChunk, promoteTimeout } from '../release-commands.ts';
import { expect, test } from './support.ts';

/**
 * `pnpm promote` refusing candidates of the legal remote broken the way releases break: a page that throws in the
 * browser only, one that scrolls sideways, one that moves while it loads, one that throws in the server render, a
 * build against another major of React, one 30% heavier, one that breaks another team's page. The manifest stays as
 * it was, and the output says why. (promote.spec.ts has the candidates that go live; each file deploys on its own.)
 */
const { candidate, refused, succeeds, liveLegal } = promoteJourney();

test('a page that throws in the browser only is refused: route, viewport and the error named', async () => {
  test.setTimeout(promoteTimeout(1));
  const version = await candidate((dist) =>
    rewrite(privacyChunk(dist), (code) => `throw new Error("privacy page broke in the browser");${code}`),
  );
  const printed = await refused(version);
  expect(printed).toMatch(/^ {2}ok +server render: /m);
  expect(printed).toMatch(
    /^Refused: browser 375 px: \/privacy: (page|console) error: .*privacy page broke in the browser$/m,
  );
  expect(printed).toMatch(/^ {2}FAIL browser 1280 px: \/privacy: /m);
});

test('a page that scrolls sideways is refused, with how far it sticks out', async () => {
  test.setTimeout(promoteTimeout(1));
  const version = await candidate((dist) => {
    for (const name of readdirSync(join(dist, 'assets')).filter((file) => file.endsWith('.css'))) {
      rewrite(join(dist, 'assets', name), (css) => `${css}\nmain h1{min-width:1500px}`);
    }
  });
  const printed = await refused(version);
  expect(printed).toMatch(
    /^Refused: browser 375 px: \/privacy: scrolls sideways: the page is \d+ px wider than the screen$/m,
  );
  expect(printed).toMatch(/^ {2}FAIL browser 1280 px: \/privacy: scrolls sideways/m);
});

test('a page that moves by itself while it loads is refused, with how much it moved', async () => {
  test.setTimeout(promoteTimeout(1));
  // A banner pushed in above the text once the page runs, as a late notice or ad would.
  const version = await candidate((dist) =>
    rewrite(
      privacyChunk(dist),
      (code) =>
        `const late = () => { if (document.documentElement.dataset.ready !== 'true') return setTimeout(late, 50); ` +
        `const banner = document.createElement('div'); banner.style.height = '400px'; document.body.prepend(banner); };` +
        `late();${code}`,
    ),
  );
  const printed = await refused(version);
  expect(printed).toMatch(
    /^Refused: browser 375 px: \/privacy: moves by itself while it loads: layout shift \d\.\d{3} \(at most 0\.1\)$/m,
  );
});

test('a page that throws in the server render is refused', async () => {
  test.setTimeout(promoteTimeout(1));
  const version = await candidate((dist) =>
    rewrite(
      join(dist, 'ssr', 'privacy-page.js'),
      (code) => `throw new Error("privacy page broke on the server");\n${code}`,
    ),
  );
  const printed = await refused(version);
  expect(printed).toMatch(/^Refused: server render: \/privacy: privacy page broke on the server$/m);
});

test('a build against another major of React is refused with both versions named', async () => {
  test.setTimeout(promoteTimeout(1));
  const version = await candidate((dist) =>
    rewrite(join(dist, 'mf-manifest.json'), (text) => {
      const federation = JSON.parse(text) as { shared: { name: string; version: string; requiredVersion: string }[] };
      for (const shared of federation.shared.filter((module) => module.name.startsWith('react'))) {
        shared.version = '18.3.1';
        shared.requiredVersion = '^18.3.1';
      }
      return JSON.stringify(federation);
    }),
  );
  const printed = await refused(version);
  expect(printed).toMatch(
    /^Refused: shared modules: react: the shell provides 19\.\d+\.\d+, the candidate was built with 18\.3\.1 and requires \^18\.3\.1;/m,
  );
});

test('a build 30% heavier is refused unless --allow-heavier; the figure is printed either way', async () => {
  test.setTimeout(promoteTimeout(2));
  const version = await candidate((dist) => {
    // Incompressible bytes, about a third of what the remote's scripts weigh in Brotli.
    const chunk = privacyChunk(dist);
    const padding = randomBytes(Math.round(statSync(`${chunk}.br`).size * 0.3 + 5_000)).toString('base64');
    rewrite(chunk, (code) => `${code}\nexport const padding = "${padding}";\n`);
  });
  const printed = await refused(version);
  const change = Number(/^Refused: weight: .* live [\d.]+ KiB: \+([\d.]+)% \(allowed \+10%\)$/m.exec(printed)![1]);
  expect(change).toBeGreaterThan(25);
  expect(change).toBeLessThan(45);

  const allowed = await succeeds(['promote', 'legal', version, '--allow-heavier']);
  expect(allowed).toMatch(/^ {2}ok +weight: .*: \+[\d.]+% \(allowed \+10%\), heavier allowed \(--allow-heavier\)$/m);
  expect(liveLegal()).toBe(version);
});

test('a candidate that breaks another team’s page (the control route) is refused, though its own pages pass', async () => {
  test.setTimeout(promoteTimeout(1));
  // Its server build changes the React every server build renders with: the consumer's carousel needs what it broke.
  const version = await candidate((dist) =>
    rewrite(
      join(dist, 'ssr', 'privacy-page.js'),
      (code) =>
        "import { createRequire as breakShared } from 'node:module';\n" +
        "breakShared(import.meta.url)('react').Children.count = () => { throw new Error('legal broke React'); };\n" +
        code,
    ),
  );
  const printed = await refused(version);
  expect(printed).toMatch(/^ {2}ok +server render: \/privacy, \/terms/m);
  expect(printed).toMatch(/^Refused: browser (375|1280) px: \/: /m);

  // pnpm releases shows every verdict.
  const list = await succeeds(['releases', 'legal']);
  expect(list).toMatch(/^ {2}\S+ {2}refused: browser 375 px: \/privacy: .*privacy page broke in the browser/m);
  expect(list).toMatch(/^ {2}\S+ {2}refused: server render: \/privacy: privacy page broke on the server/m);
  expect(list).toMatch(/^ {2}\S+ {2}refused: shared modules: react: /m);
});

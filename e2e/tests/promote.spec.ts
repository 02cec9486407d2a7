import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remotes } from '@gift/federation';
import { pageChunk, privacyChunk, releaseCommand } from '../release-commands.ts';
import { expect, test } from './support.ts';

/**
 * `pnpm promote` as a team meets it: candidates of the legal remote made from its real build, some broken the way
 * releases break (a page that throws in the browser only, one that throws in the server render, a build against
 * another major of React, a build 30% heavier), checked in Chromium on a temporary site server before any switch.
 */
const legalDist = fileURLToPath(new URL('../../legal/dist/', import.meta.url));
let deployDir = '';
let env: NodeJS.ProcessEnv = {};

const manifest = () => JSON.parse(readFileSync(env.REMOTES_MANIFEST!, 'utf8')) as Record<string, string>;
const liveLegal = () => /\/legal\/([^/]+)\//.exec(manifest().legal!)![1]!;

/** A command that must succeed; what it printed. */
async function succeeds(args: string[]) {
  const { code, printed } = await releaseCommand(args, env);
  expect(code, `${args.join(' ')}: ${printed}`).toBe(0);
  return printed;
}

/** Changes a built file; its Brotli copy goes, so the change is what is served. */
function rewrite(file: string, change: (text: string) => string) {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
  rmSync(`${file}.br`, { force: true });
}

/** Publishes a candidate of legal: its real build, changed by `breakIt`; resolves with the version. */
async function candidate(breakIt: (dist: string) => void = () => {}) {
  const dist = mkdtempSync(join(tmpdir(), 'legal-candidate-'));
  cpSync(legalDist, dist, { recursive: true });
  breakIt(dist);
  const printed = await succeeds(['release', 'legal', '--candidate', '--from', dist]);
  rmSync(dist, { recursive: true, force: true });
  return /published (\S+) as a candidate/.exec(printed)![1]!;
}

/** A promote that must be refused, leaving the manifest exactly as it was; what it printed. */
async function refused(version: string, ...flags: string[]) {
  const before = readFileSync(env.REMOTES_MANIFEST!, 'utf8');
  const { code, printed } = await releaseCommand(['promote', 'legal', version, ...flags], env);
  expect(code, printed).toBe(1);
  expect(readFileSync(env.REMOTES_MANIFEST!, 'utf8')).toBe(before);
  expect(printed).toContain(
    `legal ${version} did not go live; the manifest is as it was (${liveLegal()} is still live)`,
  );
  return printed;
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  deployDir = mkdtempSync(join(tmpdir(), 'promote-journey-'));
  env = { ...process.env, REMOTES_DIR: join(deployDir, 'remotes'), REMOTES_MANIFEST: join(deployDir, 'remotes.json') };
  // Side by side, as six teams may: the manifest is switched under a lock.
  await Promise.all(
    Object.values(remotes).map(({ folder }) =>
      succeeds(['release', folder, '--prebuilt', '--force', '--reason', 'first deployment']),
    ),
  );
});

test.afterAll(() => rmSync(deployDir, { recursive: true, force: true }));

test('a good candidate passes every check, says how long they took, and goes live', async () => {
  test.setTimeout(120_000);
  const before = liveLegal();
  const version = await candidate();
  expect(liveLegal()).toBe(before);
  const printed = await succeeds(['promote', 'legal', version]);
  for (const check of ['shared modules', 'server render', 'browser 375 px', 'browser 1280 px', 'weight']) {
    expect(printed).toMatch(new RegExp(`^  ok +${check}: `, 'm'));
  }
  expect(printed).toContain('/privacy, /terms, and / (consumer, control): hydrated, no error');
  expect(printed).toMatch(/weight: [\d.]+ KiB of JavaScript \(brotli\) on its routes, live [\d.]+ KiB: \+0\.0%/);
  // The time is printed for the team (a figure, not a gate: this machine's load decides it more than the code).
  const seconds = /checks passed in ([\d.]+) s/.exec(printed)![1];
  test.info().annotations.push({ type: 'checks took', description: `${seconds} s` });
  expect(printed).toContain(`legal: ${before} -> ${version}`);
  expect(liveLegal()).toBe(version);
});

test('a page that throws in the browser only is refused: route, viewport and the error named', async () => {
  test.setTimeout(120_000);
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
  test.setTimeout(120_000);
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
  test.setTimeout(120_000);
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
  test.setTimeout(120_000);
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
  test.setTimeout(120_000);
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
  test.setTimeout(180_000);
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
  test.setTimeout(120_000);
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
});

test('another team’s broken live page does not block a good candidate; the output names whose page it is', async () => {
  test.setTimeout(180_000);
  const consumerDist = fileURLToPath(new URL('../../consumer/dist/', import.meta.url));
  const broken = mkdtempSync(join(tmpdir(), 'consumer-broken-'));
  cpSync(consumerDist, broken, { recursive: true });
  rewrite(pageChunk(broken, 'landing-page'), (code) => `throw new Error("landing page broke in the browser");${code}`);
  const consumerVersion = /published (\S+) as a candidate/.exec(
    await succeeds(['release', 'consumer', '--candidate', '--from', broken]),
  )![1]!;
  rmSync(broken, { recursive: true, force: true });
  await succeeds(['promote', 'consumer', consumerVersion, '--force', '--reason', 'broken on purpose']);

  const version = await candidate();
  const printed = await succeeds(['promote', 'legal', version]);
  expect(printed).toMatch(
    /^ {2}ok +browser 375 px: \/privacy, \/terms: .*the control \/ fails with the live versions too, so consumer's live build is broken, not this candidate \(\/: .*landing page broke in the browser/m,
  );
  expect(liveLegal()).toBe(version);
  const back = await succeeds(['rollback', 'consumer']);
  const restored = /^consumer: \S+ -> (\S+)$/m.exec(back)![1]!;
  // The rollback is marked as one among the switches, newest first, and goes to the version live before.
  const list = await succeeds(['releases', 'consumer']);
  expect(list).toMatch(new RegExp(`^ {4}\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC {2}rollback {2}-> ${restored} `, 'm'));
  expect(list).toMatch(new RegExp(`^ {4}.* UTC {2}promote {3}-> ${consumerVersion} `, 'm'));
});

test('--force --reason skips the checks, and pnpm releases shows every verdict and who gave it', async () => {
  test.setTimeout(120_000);
  const broken = await candidate((dist) =>
    rewrite(join(dist, 'ssr', 'privacy-page.js'), (code) => `throw new Error("broken on purpose");\n${code}`),
  );
  const { code, printed } = await releaseCommand(['promote', 'legal', broken, '--force'], env);
  expect(code).toBe(1);
  expect(printed).toContain('--force needs --reason');

  const forced = await succeeds(['promote', 'legal', broken, '--force', '--reason', 'legal text due today']);
  expect(forced).toContain('Checks skipped (--force): legal text due today');
  expect(liveLegal()).toBe(broken);

  const list = await succeeds(['releases', 'legal']);
  const who = process.env.USER ?? 'root';
  expect(list).toMatch(
    new RegExp(
      `^\\* ${broken}  forced: legal text due today \\(${who}, \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)  \\(live\\)$`,
      'm',
    ),
  );
  expect(list).toMatch(/^ {2}\S+ {2}refused: browser 375 px: \/privacy: .*privacy page broke in the browser/m);
  expect(list).toMatch(/^ {2}\S+ {2}refused: server render: \/privacy: privacy page broke on the server/m);
  expect(list).toMatch(/^ {2}\S+ {2}refused: shared modules: react: /m);
  expect(list).toMatch(/^ {2}\S+ {2}passed \(checks [\d.]+ s; /m);
  expect(list).toMatch(/^ {2}\S+ {2}forced: first deployment /m);
  // Without a remote: every remote, each under its name.
  const every = await succeeds(['releases']);
  for (const { folder } of Object.values(remotes)) expect(every).toMatch(new RegExp(`^${folder}:$`, 'm'));
  await succeeds(['rollback', 'legal']);
});

test('escape codes in a page’s console or a reason are printed as visible text; the records keep them as given', async () => {
  test.setTimeout(120_000);
  const escape = '\u001b[2J\u001b]0;owned\u0007';
  const noisy = await candidate((dist) =>
    rewrite(
      privacyChunk(dist),
      (code) => `console.error(${JSON.stringify(`${escape} boom\n* fake passed (live)`)});${code}`,
    ),
  );
  const refusedPrinted = await refused(noisy);
  expect(refusedPrinted).toContain('\\u{1b}[2J\\u{1b}]0;owned\\u{7} boom');
  expect(refusedPrinted).not.toContain('\u001b');
  expect(refusedPrinted).not.toMatch(/^\* fake/m);

  const forcedVersion = await candidate();
  const reason = `due today${escape}\n* 20990101.000000.000-ffffffff  passed (live)`;
  await succeeds(['promote', 'legal', forcedVersion, '--force', '--reason', reason]);
  const list = await succeeds(['releases', 'legal']);
  expect(list).not.toContain('\u001b');
  expect(list).not.toMatch(/^\* 20990101/m);
  expect(list).toContain('due today\\u{1b}[2J');
  const records = readFileSync(env.REMOTES_MANIFEST!.replace(/\.json$/, '.releases.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { reason?: string; why?: string });
  expect(records.some((record) => record.reason === reason.trim())).toBe(true);
  expect(records.some((record) => record.why?.includes(escape))).toBe(true);
  await succeeds(['rollback', 'legal']);
});

test('promotes at once: two of one remote take turns, another remote’s is checked beside them; all switch', async () => {
  test.setTimeout(240_000);
  const [first, second] = [await candidate(), await candidate()];
  const vendorDist = fileURLToPath(new URL('../../vendor/dist/', import.meta.url));
  const vendor = /published (\S+) as a candidate/.exec(
    await succeeds(['release', 'vendor', '--candidate', '--from', vendorDist]),
  )![1]!;

  const runs = await Promise.all([
    releaseCommand(['promote', 'legal', first!], env),
    releaseCommand(['promote', 'vendor', vendor], env),
    releaseCommand(['promote', 'legal', second!], env),
  ]);
  for (const run of runs) expect(run.code, run.printed).toBe(0);
  // One of the two legal promotes waited for the other; the vendor one waited for neither.
  expect(runs.filter((run) => run.printed.includes('Waiting for the release of legal'))).toHaveLength(1);
  expect(runs[1]!.printed).not.toContain('Waiting');
  expect(manifest().vendor).toContain(`/vendor/${vendor}/`);
  // The one that went second is live, and it went live from the first.
  const waited = runs[0]!.printed.includes('Waiting') ? first : second;
  const other = waited === first ? second : first;
  expect(liveLegal()).toBe(waited);
  expect(runs.find((run) => run.printed.includes(`legal: ${other} -> ${waited}`))).toBeDefined();
});

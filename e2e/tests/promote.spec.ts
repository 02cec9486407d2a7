import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { remotes } from '@gift/federation';
import { promoteJourney } from '../promote-journey.ts';
import { promoteTimeout, releaseCommand, rewrite, rewritePage } from '../release-commands.ts';
import { expect, test } from './support.ts';

/**
 * `pnpm promote` as a team meets it when a candidate of the legal remote goes live: the checks and their times,
 * another team's broken live page, `--force --reason` and the record of verdicts, escape codes in what is printed,
 * and promotes at once. (promote-refusals.spec.ts has the refusals; each file deploys on its own.)
 */
const { candidate, refused, succeeds, liveLegal, manifest, env } = promoteJourney();

test('a good candidate passes every check, says how long they took, and goes live', async () => {
  test.setTimeout(promoteTimeout(1));
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

test('another team’s broken live page does not block a good candidate; the output names whose page it is', async () => {
  test.setTimeout(promoteTimeout(1));
  const consumerDist = fileURLToPath(new URL('../../consumer/dist/', import.meta.url));
  const broken = mkdtempSync(join(tmpdir(), 'consumer-broken-'));
  cpSync(consumerDist, broken, { recursive: true });
  rewritePage(broken, 'landing-page', (code) => `throw new Error("landing page broke in the browser");${code}`);
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
  test.setTimeout(promoteTimeout(1));
  const broken = await candidate((dist) =>
    rewrite(join(dist, 'ssr', 'privacy-page.js'), (code) => `throw new Error("broken on purpose");\n${code}`),
  );
  await refused(broken);
  const { code, printed } = await releaseCommand(['promote', 'legal', broken, '--force'], env());
  expect(code).toBe(1);
  expect(printed).toContain('--force needs --reason');

  const forced = await succeeds(['promote', 'legal', broken, '--force', '--reason', 'legal text due today']);
  expect(forced).toContain('Checks skipped (--force): legal text due today');
  expect(liveLegal()).toBe(broken);

  const list = await succeeds(['releases', 'legal']);
  const who = process.env.USER ?? 'root';
  expect(list).toMatch(
    new RegExp(
      `^\\* ${broken}  refused: .*  \\(live\\)\\n {4,}forced: legal text due today \\(${who}, \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)$`,
      'm',
    ),
  );
  // A version shows every verdict, oldest first (refused, then forced), the markers on its first line; refusals of
  // every kind are listed in promote-refusals.spec.ts.
  expect(list).toMatch(/^ {2}\S+ {2}passed \(checks [\d.]+ s; /m);
  expect(list).toMatch(/^ {2}\S+ {2}forced: first deployment /m);
  // Without a remote: every remote, each under its name.
  const every = await succeeds(['releases']);
  for (const { folder } of Object.values(remotes)) expect(every).toMatch(new RegExp(`^${folder}:$`, 'm'));
  await succeeds(['rollback', 'legal']);
});

test('escape codes in a page’s console or a reason are printed as visible text; the records keep them as given', async () => {
  test.setTimeout(promoteTimeout(1));
  const escape = '\u001b[2J\u001b]0;owned\u0007';
  const noisy = await candidate((dist) =>
    rewritePage(
      dist,
      'privacy-page',
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
  const records = readFileSync(env().REMOTES_MANIFEST!.replace(/\.json$/, '.releases.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { reason?: string; why?: string });
  expect(records.some((record) => record.reason === reason.trim())).toBe(true);
  expect(records.some((record) => record.why?.includes(escape))).toBe(true);
  await succeeds(['rollback', 'legal']);
});

test('promotes at once: two of one remote take turns, another remote’s is checked beside them; all switch', async () => {
  test.setTimeout(promoteTimeout(3));
  const [first, second] = [await candidate(), await candidate()];
  const vendorDist = fileURLToPath(new URL('../../vendor/dist/', import.meta.url));
  const vendor = /published (\S+) as a candidate/.exec(
    await succeeds(['release', 'vendor', '--candidate', '--from', vendorDist]),
  )![1]!;

  const runs = await Promise.all([
    releaseCommand(['promote', 'legal', first!], env()),
    releaseCommand(['promote', 'vendor', vendor], env()),
    releaseCommand(['promote', 'legal', second!], env()),
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

import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  countsLine,
  judgeRelease,
  judgeRollout,
  openMigratedDatabase,
  printable,
  readJudgeSettings,
  type Db,
} from 'api/commands';
import { remoteNames, remotes, type RemoteName } from '@gift/federation';
import { postgresLedger } from '../ledger/ledger.ts';
import { switchesOf, watchedRelease, type ReleaseRecord } from '../ledger/records.ts';
import { ledgerOf } from '../ledger/switches.ts';
// The site's own check of PUBLIC_SITE_URL, from its own module: the server's modules stay unloaded.
import { siteOrigin } from '../http/site-origin.ts';
import { maxPreviewHours, previewPath, signPreview } from '../ledger/preview-links.ts';
import {
  defaultStageMinutes,
  judgedOver,
  parseStageMinutes,
  parseStages,
  shareOf,
  type Rollout,
} from '../ledger/rollouts.ts';
import { removeInvalidRollout, rolloutActions, stepRollout, type RolloutAction } from '../ledger/rollout-steps.ts';
import { rolloutLines } from './rollout-status.ts';
import { experimentCommand, experimentStatus } from './experiment-cli.ts';
import {
  ReleaseError,
  promote,
  publishCandidate,
  release,
  releases,
  remoteNamed,
  requirePublished,
  rollback,
  type ReleaseSettings,
  type Switch,
} from './release.ts';
import { buildLimits } from '../ledger/build-limits.ts';

/**
 * The release commands, with the site server's settings (REMOTES_DIR, REMOTES_MANIFEST and, for a CDN,
 * REMOTES_BASE_URL):
 *   pnpm release <remote> [--candidate] [--prebuilt | --from <dir>] [--force --reason "<why>"] [--allow-heavier] [--verbose]
 *                [--stages 5,25,100 [--stage-minutes 10]]
 *   pnpm release --all [--prebuilt] [--force --reason "<why>"]   every remote, one after the other (a rehearsal)
 *   pnpm promote <remote> <version> [--force --reason "<why>"] [--allow-heavier] [--stages ... [--stage-minutes ...]]
 *   pnpm rollout <remote> status|pause|resume|advance|complete|abort [--reason "<why>"]
 *   pnpm experiment <remote> start <version> [--share 50] [--goal <goal>] [--days 14] [--force --reason "<why>"]
 *   pnpm experiment <remote> status | stop [--reason "<why>"] | ship
 *   pnpm rollback <remote> [version] [--force --reason "<why>"]
 *   pnpm releases [remote]                                every remote when none is named
 *   pnpm preview-link <remote> <version> [--hours 24]     (PREVIEW_SECRET, PUBLIC_SITE_URL)
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
// pnpm runs this script in its package's folder; paths are meant from where the command was typed.
const typedIn = process.env.INIT_CWD ?? process.cwd();
const path = (value: string) => (isAbsolute(value) ? value : resolve(typedIn, value));

let db: Db | undefined;
let known: ReleaseSettings | undefined;

/**
 * The release judge's settings (RELEASE_WATCH_*), as the site server reads them; a wrong one is one line that names
 * it. The commands need nothing else of the API's settings (no secret, no site address).
 */
function judgeRule() {
  try {
    return readJudgeSettings(process.env);
  } catch (error) {
    throw new ReleaseError(
      `${(error as Error).message}: set it as the site server has it (its env file, or the shell that runs pnpm start).`,
    );
  }
}

/**
 * The site servers' settings: REMOTES_DIR, and where the releases live: PostgreSQL's tables when DATABASE_URL names
 * one (the site servers follow them), the manifest file REMOTES_MANIFEST otherwise.
 */
async function settings(): Promise<ReleaseSettings> {
  if (known) return known;
  const { REMOTES_DIR, REMOTES_MANIFEST, REMOTES_BASE_URL, DATABASE_URL } = process.env;
  if (!REMOTES_DIR || (!REMOTES_MANIFEST && !DATABASE_URL)) {
    throw new ReleaseError(
      'Set REMOTES_DIR (the folder of deployed builds) and DATABASE_URL (the site servers\u2019 PostgreSQL) or ' +
        'REMOTES_MANIFEST (the manifest file), as the site server has them.',
    );
  }
  if (DATABASE_URL) db = await openMigratedDatabase({ databaseUrl: DATABASE_URL, dataDir: '' });
  known = {
    root,
    remotesDir: path(REMOTES_DIR),
    manifestFile: REMOTES_MANIFEST ? path(REMOTES_MANIFEST) : '',
    remotesBaseUrl: REMOTES_BASE_URL,
    ledger: db && postgresLedger(db, REMOTES_BASE_URL),
    limits: buildLimits(process.env),
  };
  return known;
}

function printSwitch(change: Switch & { rollout?: Rollout }) {
  if (change.rollout) return printRolloutStart(change.rollout, change);
  console.log(`${remotes[change.remote].folder}: ${printable(change.from ?? '(none)')} -> ${printable(change.to)}`);
  console.log(`  manifest: ${change.entry}`);
  console.log(`  ${change.changes}`);
  if (change.missing.length) {
    console.log(`  the manifest names no build of ${change.missing.join(', ')}: their pages show "unavailable"`);
  }
}

function printRolloutStart(rollout: Rollout, change: Switch) {
  const folder = remotes[rollout.remote].folder;
  if (rollout.experiment) {
    const { goal, days } = rollout.experiment;
    console.log(
      `${folder}: experiment started: ${printable(rollout.version)} serves ${shareOf(rollout)}% of visitors, ` +
        `${printable(rollout.current)} the others, for ${days} days, judged on ${goal}`,
    );
    console.log(`  new version's entry: ${change.entry}`);
    console.log(`  ${change.changes}`);
    console.log(`  follow it:  pnpm experiment ${folder} status    end it:  pnpm experiment ${folder} ship|stop`);
    return;
  }
  console.log(
    `${folder}: ${printable(rollout.version)} serves ${shareOf(rollout)}% of visitors; ${printable(rollout.current)} ` +
      `keeps the others (stages ${rollout.stages.join('% -> ')}%, ${rollout.stageMinutes} min each)`,
  );
  console.log(`  canary entry: ${change.entry}`);
  console.log(`  ${change.changes}`);
  console.log(
    `  follow it:  pnpm releases ${folder}    by hand:  pnpm rollout ${folder} status|pause|resume|advance|complete|abort`,
  );
}

/** `--stages` and `--stage-minutes` (ROLLOUT_STAGE_MINUTES by default) as a promote's rollout, when given. */
function rolloutOf(values: { stages?: string; 'stage-minutes'?: string }) {
  if (values.stages === undefined) {
    if (values['stage-minutes'] !== undefined) throw new ReleaseError('--stage-minutes goes with --stages.');
    return undefined;
  }
  const stages = parseStages(values.stages);
  if ('problem' in stages) throw new ReleaseError(stages.problem);
  const minutesText = values['stage-minutes'] ?? process.env.ROLLOUT_STAGE_MINUTES ?? String(defaultStageMinutes);
  const minutes = parseStageMinutes(minutesText);
  if ('problem' in minutes) throw new ReleaseError(minutes.problem);
  return { stages: stages.stages, stageMinutes: minutes.minutes };
}

/** `pnpm rollout <remote> <action>`: a step taken by hand, recorded with who took it. */
async function rolloutCommand(remote: RemoteName, action: string | undefined, reason: string | undefined) {
  const folder = remotes[remote].folder;
  if (action === 'status' || action === undefined) {
    const ledger = ledgerOf(await settings());
    const problem = (await ledger.invalidRollouts())[remote];
    if (problem) {
      throw new ReleaseError(
        `${folder}: the rollout entry is not one (${problem}); it is passed over until it is fixed or removed ` +
          `(pnpm rollout ${folder} abort).`,
      );
    }
    const rollout = (await ledger.rollouts())[remote];
    if (!rollout) console.log(`${folder}: no rollout under way`);
    else for (const line of await rolloutStatus(rollout)) console.log(printable(line));
    return;
  }
  if (!rolloutActions.includes(action as RolloutAction)) {
    throw new ReleaseError(`pnpm rollout ${folder} takes status, ${rolloutActions.join(', ')}; not "${action}".`);
  }
  if (reason !== undefined && action !== 'abort' && action !== 'advance' && action !== 'complete') {
    throw new ReleaseError('--reason goes with abort, advance or complete.');
  }
  if (action === 'abort') {
    const removed = await removeInvalidRollout(await settings(), remote);
    if (removed) {
      console.log(`${folder}: removed the rollout entry that was not one (${removed}); no rollout under way`);
      return;
    }
  }
  if ((action === 'advance' || action === 'complete') && !reason?.trim()) {
    // A mismatch of the arms' sizes holds a rollout: only a person who says why takes it on.
    const rollout = (await ledgerOf(await settings()).rollouts())[remote];
    const data = rollout && !rollout.experiment ? await fieldDataDb() : undefined;
    const ratio = data && (await judgeRollout(data, judgedOver(rollout!), judgeRule())).sampleRatio;
    if (ratio?.mismatch) {
      throw new ReleaseError(
        `Not ${action === 'advance' ? 'advanced' : 'completed'}: the arms are not the sizes the split says, so the ` +
          `canary's figures cannot be trusted.\n  sample ratio: ${ratio.why}\nFind why, then pnpm rollout ${folder} ` +
          `abort, or ${action} --reason "<why it is safe>".`,
      );
    }
  }
  const step = await stepRollout(await settings(), remote, action as RolloutAction, {
    why: reason?.trim() || 'by hand',
  });
  if (!step) throw new ReleaseError(`The rollout of ${folder} changed meanwhile: see pnpm rollout ${folder} status.`);
  const { before, after } = step;
  const said = {
    paused: `paused at ${shareOf(before)}%: nothing advances until pnpm rollout ${folder} resume`,
    resumed: `resumed at ${shareOf(before)}%`,
    advanced: `now serves ${after ? shareOf(after) : 100}% of visitors`,
    completed: `is live for everyone; the rollout is over`,
    aborted: `is taken off: every visitor has ${printable(before.current)} again`,
  }[step.done];
  console.log(`${folder}: ${printable(before.version)} ${said}`);
}

/** A rollout's lines, with its cohorts' figures when the site's field data is here to read. */
async function rolloutStatus(rollout: Rollout) {
  if (rollout.experiment) {
    return experimentStatus(rollout, { fieldDataDb, rule: judgeRule() });
  }
  const data = await fieldDataDb();
  const judged =
    data &&
    (await judgeRollout(data, judgedOver(rollout), judgeRule(), undefined, {
      reports: true,
    }));
  return rolloutLines(rollout, new Date(), judged);
}

const options = {
  stages: { type: 'string' },
  'stage-minutes': { type: 'string' },
  candidate: { type: 'boolean' },
  prebuilt: { type: 'boolean' },
  from: { type: 'string' },
  force: { type: 'boolean' },
  reason: { type: 'string' },
  'allow-heavier': { type: 'boolean' },
  hours: { type: 'string' },
  all: { type: 'boolean' },
  verbose: { type: 'boolean' },
  share: { type: 'string' },
  goal: { type: 'string' },
  days: { type: 'string' },
} as const;

/** `--force` and `--reason` go together: a release that skips the checks says why. */
function forced(values: { force?: boolean; reason?: string }) {
  if (values.force && !values.reason?.trim())
    throw new ReleaseError('--force needs --reason "<why the checks are skipped>".');
  if (!values.force && values.reason !== undefined) throw new ReleaseError('--reason goes with --force.');
  return values.force ? { reason: values.reason!.trim() } : undefined;
}

async function previewLink(remoteName: string | undefined, version: string | undefined, hoursText = '24') {
  const remote = remoteNamed(remoteName);
  if (!version)
    throw new ReleaseError(`Name a version of ${remotes[remote].folder}: see pnpm releases ${remotes[remote].folder}.`);
  await requirePublished(await settings(), remote, version);
  const secret = process.env.PREVIEW_SECRET ?? '';
  if (secret.length < 32) {
    throw new ReleaseError(
      'Set PREVIEW_SECRET (32 characters or more) to the site server\u2019s: previews are off without it.',
    );
  }
  const hours = Number(hoursText);
  if (!(hours > 0 && hours <= maxPreviewHours)) {
    throw new ReleaseError(`--hours takes a number above 0 and at most ${maxPreviewHours}, got "${hoursText}".`);
  }
  const site = siteOrigin(process.env.PUBLIC_SITE_URL ?? `http://127.0.0.1:${process.env.PORT ?? 4173}`);
  const expires = Date.now() + hours * 3_600_000;
  const token = signPreview({ remote, version, expires }, secret);
  console.log(`${site}${previewPath}?token=${token}`);
  console.error(
    `Shows ${remotes[remote].folder} ${version} on the live site to whoever opens it, in that browser only, until ` +
      `${new Date(expires).toISOString().slice(0, 16).replace('T', ' ')} UTC or until they end the preview.`,
  );
}

/**
 * `pnpm releases <remote>`: a heading line, then every version, oldest first, the live one starred and the canary
 * marked, each with its story: every check, rollback and abort, one a line.
 */
async function printReleases(remote: RemoteName) {
  const list = await releases(await settings(), remote);
  console.log(`${remotes[remote].folder}:${list.length === 0 ? ' no released version' : ''}`);
  for (const entry of list) {
    // A verdict quotes reasons and a page's console as they were given: shown on one line, escape codes made visible.
    const [first, ...later] = entry.history.map((line) => printable(line));
    const mark = entry.live
      ? '  (live)'
      : entry.canary !== undefined
        ? `  (${entry.experiment ? 'experiment' : 'canary'}: ${entry.canary}% of visitors)`
        : '';
    console.log(
      `${entry.live ? '*' : entry.canary !== undefined ? '~' : ' '} ${printable(entry.version)}  ${first}${mark}`,
    );
    const indent = ' '.repeat(printable(entry.version).length + 4);
    for (const line of later) console.log(`${indent}${line}`);
  }
  const records = await ledgerOf(await settings()).records(remote);
  const history = switchesOf(records).slice(0, recentSwitches);
  if (history.length) console.log(`  switches, newest first:`);
  for (const change of history) {
    const at = `${change.at.slice(0, 16).replace('T', ' ')} UTC`;
    console.log(`    ${at}  ${change.how.padEnd(8)}  -> ${printable(change.version)}  (${printable(change.who)})`);
  }
  const watching = await watchLine(remote, records);
  if (watching) console.log(printable(watching));
  const rollout = (await ledgerOf(await settings()).rollouts())[remote];
  if (rollout) for (const line of await rolloutStatus(rollout)) console.log(printable(line));
}

/**
 * The site's field data, where the site server keeps it (DATABASE_URL, or the SQLite file in DATA_DIR when there is
 * one): undefined when there is none to read.
 */
let fieldDb: Db | undefined | null = null;
async function fieldDataDb(): Promise<Db | undefined> {
  if (fieldDb !== null) return fieldDb;
  fieldDb = undefined;
  if (db) return (fieldDb = db);
  // Where the API keeps it without PostgreSQL: DATA_DIR, or the workspace's .data (as pnpm start has it).
  const dataDir = process.env.DATA_DIR ? path(process.env.DATA_DIR) : join(root, '.data');
  if (existsSync(join(dataDir, 'requests.sqlite')))
    fieldDb = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
  return fieldDb;
}

/** What the release watch sees of a remote's release under watch, in a line; undefined when none is watched. */
async function watchLine(remote: RemoteName, records: ReleaseRecord[]) {
  const minutes = Number(process.env.RELEASE_WATCH_MINUTES ?? 15);
  const watched = minutes > 0 ? watchedRelease(records, new Date(), minutes) : undefined;
  const data = watched && (await fieldDataDb());
  if (!watched || !data) return undefined;
  const { next, decision } = await judgeRelease(data, { remote, ...watched }, judgeRule(), undefined, {
    reports: true,
  });
  return (
    `  the release watch, since ${watched.since.toISOString().slice(0, 16).replace('T', ' ')} UTC: ` +
    `${countsLine(next)}; ${decision.verdict === 'wait' ? decision.why : `${decision.verdict}: ${decision.why}`}`
  );
}

/** How many of a remote's switches `pnpm releases` lists. */
const recentSwitches = 5;

async function main(args: string[]) {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  const [command, name, version] = positionals;
  const log = (line: string) => console.log(line);
  if (command === 'preview-link') return previewLink(name, version, values.hours);
  if (command === 'releases' && name === undefined) {
    for (const remote of remoteNames) await printReleases(remote);
    return;
  }
  if (command === 'release' && values.all) {
    if (name !== undefined) throw new ReleaseError('Name a remote or give --all, not both.');
    if (values.candidate || values.from || values.stages !== undefined)
      throw new ReleaseError(
        '--all releases each remote\u2019s own build for everyone: no --candidate, --from or --stages.',
      );
    for (const remote of remoteNames) {
      printSwitch(await release(await settings(), remote, { prebuilt: values.prebuilt, force: forced(values), log }));
    }
    return;
  }
  const remote = remoteNamed(name);
  if (command === 'release') {
    if (values.prebuilt && values.from) throw new ReleaseError('Give --prebuilt or --from, not both.');
    const publish = { prebuilt: values.prebuilt, from: values.from && path(values.from), verbose: values.verbose, log };
    if (values.candidate && values.stages !== undefined) {
      throw new ReleaseError('A candidate goes live with pnpm promote, which takes --stages: not both here.');
    }
    if (values.candidate) {
      const candidate = await publishCandidate(await settings(), remote, publish);
      const folder = remotes[remote].folder;
      console.log(`${folder}: published ${candidate} as a candidate; nothing went live.`);
      console.log(`  look at it:  pnpm preview-link ${folder} ${candidate}`);
      console.log(`  release it:  pnpm promote ${folder} ${candidate}`);
    } else {
      printSwitch(
        await release(await settings(), remote, {
          ...publish,
          force: forced(values),
          allowHeavier: values['allow-heavier'],
          rollout: rolloutOf(values),
        }),
      );
    }
  } else if (command === 'promote') {
    if (!version) throw new ReleaseError(`Name the version to promote: see pnpm releases ${remotes[remote].folder}.`);
    printSwitch(
      await promote(await settings(), remote, version, {
        force: forced(values),
        allowHeavier: values['allow-heavier'],
        rollout: rolloutOf(values),
        log,
      }),
    );
  } else if (command === 'rollback') {
    printSwitch(await rollback(await settings(), remote, version, { force: forced(values) }));
  } else if (command === 'releases') {
    await printReleases(remote);
  } else if (command === 'rollout') {
    await rolloutCommand(remote, version, values.reason);
  } else if (command === 'experiment') {
    const { share, goal, days, force, reason, ...others } = values;
    const stray = Object.keys(others).find((key) => others[key as keyof typeof others] !== undefined);
    if (stray) throw new ReleaseError(`--${stray} does not go with pnpm experiment.`);
    await experimentCommand(
      remote,
      version,
      positionals[3],
      { share, goal, days, force, reason },
      {
        settings,
        fieldDataDb,
        rule: judgeRule(),
        printSwitch,
        log,
      },
    );
  } else {
    throw new ReleaseError(
      `Unknown command "${command}": release, promote, rollout, experiment, rollback, releases or preview-link.`,
    );
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof ReleaseError) && (error as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    throw error;
  }
  console.error(printable(error instanceof Error ? error.message : String(error), { multiline: true }));
  process.exitCode = 1;
} finally {
  // Opened by the functions above, which TypeScript does not follow here.
  const opened = fieldDb as Db | undefined | null;
  if (opened && opened !== db) await opened.destroy();
  await db?.destroy();
}

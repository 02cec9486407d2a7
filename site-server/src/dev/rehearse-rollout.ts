import { parseArgs } from 'node:util';
import { examplePath, routesOf } from '@gift/content';
import { fieldDataPath } from '@gift/contracts/field-data';
import { remoteNames, remotes, type RemoteName } from '@gift/federation';
import { newVisitorId } from '../rollouts/cohorts.ts';

/**
 * `pnpm rehearse-rollout <remote>`: visitors for a staged rollout on your own machine, so that its watch decides by
 * itself as it would in production. One machine is one network, which the watch never trusts alone; this command is
 * many: each view comes from a network of its own (10.<n>.0.1, told to the site as the proxy in front would tell it,
 * which a site started with TRUST_PROXY=1 believes). Each view fetches a page of the remote with a cohort's cookie,
 * reads which version it got, and sends the beacon the page's collector would, with the view's ticket: clean, or with
 * an error on the canary's views at `--canary-errors` percent. Rehearsals only: a production site trusts its real
 * proxy, never this machine.
 */
const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    views: { type: 'string', default: '300' },
    'canary-errors': { type: 'string', default: '0' },
    site: { type: 'string' },
  },
});
const found = remoteNames.find((name) => name === positionals[0] || remotes[name].folder === positionals[0]);
if (!found) {
  console.error(`Name a remote: ${remoteNames.map((name) => remotes[name].folder).join(', ')}.`);
  process.exit(1);
}
const remote: RemoteName = found;
const views = Number(values.views);
const canaryErrors = Number(values['canary-errors']);
if (!(Number.isInteger(views) && views > 0 && views <= 100_000) || !(canaryErrors >= 0 && canaryErrors <= 100)) {
  console.error('--views takes a whole number from 1 to 100000, --canary-errors a percent from 0 to 100.');
  process.exit(1);
}
const site = values.site ?? `http://127.0.0.1:${process.env.PORT ?? 4173}`;
const folder = remotes[remote].folder;
const path = examplePath(routesOf(remote)[0]!);

/** One view from network `n` by the visitor of id `visitor`: the version it was shown. */
async function view(n: number, visitor: string) {
  // A browser's user agent: the site keeps what a script says it is (a crawler) out of every arm's figures.
  const from = {
    'x-forwarded-for': `10.${(n >> 8) & 255}.${n & 255}.1`,
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0 (rehearsal)',
  };
  const page = await fetch(`${site}${path}`, { headers: { ...from, cookie: `cohort=${visitor}` } });
  const html = await page.text();
  if (!page.ok) throw new Error(`${path} answered ${page.status}`);
  const version = new RegExp(`/${folder}/([^/"]+)/remoteEntry\\.js`).exec(html)?.[1];
  const ticket = page.headers.getSetCookie().find((line) => line.startsWith(`rum_${remote}=`));
  if (!version || !ticket) throw new Error(`${path} came without ${folder}'s version or view ticket`);
  const erred = version !== live && Math.random() * 100 < canaryErrors;
  const beacon = await fetch(`${site}${fieldDataPath}`, {
    method: 'POST',
    headers: { ...from, 'content-type': 'application/json', cookie: `cohort=${visitor}; ${ticket.split(';')[0]}` },
    body: JSON.stringify({
      route: routesOf(remote)[0]!.path,
      remote,
      version,
      shell: 'rehearsal',
      viewport: n % 2 ? 'phone' : 'desktop',
      view: true,
      entries: [
        { metric: 'LCP', value: 1000 + Math.round(Math.random() * 800) },
        { metric: 'INP', value: 60 + Math.round(Math.random() * 80) },
        ...(erred ? [{ error: 'Rehearsal: an error on the canary', count: 1 }] : []),
      ],
    }),
  });
  await beacon.arrayBuffer();
  if (beacon.status !== 204)
    throw new Error(`the beacon was answered ${beacon.status}: is the site started with TRUST_PROXY=1?`);
  return version;
}

const manifest = (await (await fetch(`${site}/remotes.json`)).json()) as Record<string, string>;
const live = new RegExp(`/${folder}/([^/]+)/`).exec(manifest[remote] ?? '')?.[1];
const seen = new Map<string, number>();
const count = (version: string) => seen.set(version, (seen.get(version) ?? 0) + 1);
// A view by each of 100 new visitors first, to learn which the site puts in the canary (the split is the site's to
// make); then the canary's visitors and the others take turns, so that both versions are seen from as many networks.
// Not the split's proportions: the sample ratio check says so (and holds the stage), an erring canary is still aborted.
const visitors: Record<'canary' | 'live', string[]> = { canary: [], live: [] };
let n = 0;
for (; n < Math.min(views, 100); n++) {
  const visitor = newVisitorId();
  const version = await view(n, visitor);
  count(version);
  visitors[version === live ? 'live' : 'canary'].push(visitor);
}
for (; n < views; n++) {
  const side = visitors.canary.length && (n % 2 || !visitors.live.length) ? visitors.canary : visitors.live;
  count(await view(n, side[n % side.length]!));
}
console.log(
  `${views} views of ${path} from ${views} networks: ` +
    [...seen]
      // The canary first, then the live version.
      .sort(([version]) => (version === live ? 1 : -1))
      .map(([version, count]) => `${count} of ${version}${version === live ? ' (live)' : ' (canary)'}`)
      .join(', ') +
    (canaryErrors > 0 ? `; the canary's views erred at ${canaryErrors}%` : '') +
    `. Follow the watch's decision: pnpm releases ${folder}`,
);

import { parseArgs } from 'node:util';
import { examplePath, routesOf } from '@gift/content';
import { fieldDataPath } from '@gift/contracts/field-data';
import { remoteNames, remotes, type RemoteName } from '@gift/federation';

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

/** One visitor's view from network `n`, in cohort bucket `bucket`: the version it was shown. */
async function view(n: number, bucket: number) {
  const from = { 'x-forwarded-for': `10.${(n >> 8) & 255}.${n & 255}.1` };
  const page = await fetch(`${site}${path}`, { headers: { ...from, cookie: `cohort=${bucket}` } });
  const html = await page.text();
  if (!page.ok) throw new Error(`${path} answered ${page.status}`);
  const version = new RegExp(`/${folder}/([^/"]+)/remoteEntry\\.js`).exec(html)?.[1];
  const ticket = page.headers.getSetCookie().find((line) => line.startsWith(`rum_${remote}=`));
  if (!version || !ticket) throw new Error(`${path} came without ${folder}'s version or view ticket`);
  const erred = version !== live && Math.random() * 100 < canaryErrors;
  const beacon = await fetch(`${site}${fieldDataPath}`, {
    method: 'POST',
    headers: { ...from, 'content-type': 'application/json', cookie: `cohort=${bucket}; ${ticket.split(';')[0]}` },
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
// A view in each of the 100 cohort buckets first, to learn which show the canary (the split is the site's to make);
// then the canary's buckets and the others take turns, so that both versions are seen from as many networks.
const buckets: Record<'canary' | 'live', number[]> = { canary: [], live: [] };
let n = 0;
for (; n < Math.min(views, 100); n++) {
  const version = await view(n, n);
  count(version);
  buckets[version === live ? 'live' : 'canary'].push(n);
}
for (; n < views; n++) {
  const side = buckets.canary.length && (n % 2 || !buckets.live.length) ? buckets.canary : buckets.live;
  count(await view(n, side[n % side.length]!));
}
console.log(
  `${views} views of ${path} from ${views} networks: ` +
    [...seen]
      .map(([version, count]) => `${count} of ${version}${version === live ? ' (live)' : ' (canary)'}`)
      .join(', ') +
    (canaryErrors > 0 ? `; the canary's views erred at ${canaryErrors}%` : '') +
    `. Follow the watch's decision: pnpm releases ${folder}`,
);

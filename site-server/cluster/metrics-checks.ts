/**
 * The cluster check's metrics rows: Prometheus (Debian's) scrapes both site servers and both API instances every
 * second, and is asked with PromQL what an operator would ask of it; `promtool check metrics` reads a scrape of each.
 * Each query and its answer is printed, for the record.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PostgresFaults } from 'api/test/databases';
import { promtoolBin, sleep, type Sample, type startPrometheus } from 'api/cluster/topology';
import type { startSmtpSink } from 'api/test/smtp-sink';
import { promote, publishCandidate, type ReleaseSettings } from '../src/releases/release.ts';

type Check = (name: string, figures: string, ok: boolean) => void;

/** The dashboard's queries (ops/grafana/giftwell-site.json): each panel's title and its PromQL. */
function dashboardQueries(root: string) {
  const dashboard = JSON.parse(readFileSync(join(root, 'ops', 'grafana', 'giftwell-site.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    panel.targets.map((target) => ({ title: panel.title, expr: target.expr })),
  );
}

const isUnavailableVendor = (sample: Sample) =>
  sample.metric.alertname === 'LiveVersionUnavailable' && sample.metric.remote === 'vendor';

const shown = (samples: Sample[]) =>
  samples.length
    ? samples
        .map(({ metric, value }) => {
          const labels = Object.entries(metric)
            .filter(([name]) => name !== '__name__')
            .map(([name, text]) => `${name}="${text}"`)
            .join(',');
          return `{${labels}} ${Math.round(value * 1000) / 1000}`;
        })
        .join('; ')
    : 'no series';

export async function metricsChecks(
  check: Check,
  {
    prometheus,
    servers,
    apis,
    apiPorts,
    postgres,
    site,
    settings,
    smtp,
    root,
  }: {
    prometheus: Awaited<ReturnType<typeof startPrometheus>>;
    servers: { port: number; child?: ChildProcess }[];
    apis: ChildProcess[];
    apiPorts: number[];
    postgres: { faults?: PostgresFaults };
    site: string;
    settings: ReleaseSettings;
    smtp: Awaited<ReturnType<typeof startSmtpSink>>;
    root: string;
  },
) {
  /** Asks `promql` until `ok` holds of its answer or `timeoutMs` passes; prints the last answer. */
  const until = async (promql: string, ok: (samples: Sample[]) => boolean, timeoutMs = 20_000) => {
    const started = Date.now();
    let samples: Sample[] = [];
    while (Date.now() - started < timeoutMs) {
      samples = await prometheus.query(promql);
      if (ok(samples)) break;
      await sleep(250);
    }
    const ms = Date.now() - started;
    console.log(`PromQL ${promql}\n  -> ${shown(samples)} (after ${ms} ms)`);
    return { samples, ms, ok: ok(samples) };
  };
  const one = (samples: Sample[]) => samples[0]?.value;

  // --- every server is scraped
  const up = await until('up', (samples) => samples.length === 4 && samples.every((sample) => sample.value === 1));
  check(
    'Prometheus scrapes the four servers every second',
    `up: ${up.samples.map((sample) => `${sample.metric.job} ${sample.value}`).join(', ')}`,
    up.ok,
  );

  // --- the vendor version tampered with on the CDN (the check before this one): live, but neither server serves it
  const unavailable = await until(
    'site_live_version_unavailable{remote="vendor"} == 1',
    (samples) => samples.length === 2,
  );
  const refused = await until('sum by (reason) (site_builds_refused_total{remote="vendor"})', (samples) =>
    samples.some((sample) => sample.metric.reason === 'checksum' && sample.value > 0),
  );
  check(
    'the tampered version, seen in the metrics',
    `a live version unavailable on ${unavailable.samples.length} servers; builds refused: ${shown(refused.samples)}`,
    unavailable.ok && refused.ok,
  );

  // --- the alert rules (ops/prometheus/alerts.yml, their `for:` 2 s here), evaluated every second on these series:
  // the tampered version's alert firing for both servers, and no other alert pending or firing
  const alerts = await until(
    'ALERTS',
    (samples) =>
      samples.filter((sample) => isUnavailableVendor(sample) && sample.metric.alertstate === 'firing').length === 2,
  );
  const others = alerts.samples.filter((sample) => !isUnavailableVendor(sample));
  check(
    'the alert rules on these series',
    `LiveVersionUnavailable ${alerts.samples.filter(isUnavailableVendor).length > 0 ? alerts.samples.find(isUnavailableVendor)!.metric.alertstate : 'absent'} for vendor on ${alerts.samples.filter(isUnavailableVendor).length} servers; others: ${others.length ? shown(others) : 'none'}`,
    alerts.ok && others.length === 0,
  );

  // --- after a promote of legal, both servers say they serve its new version
  const before = (await prometheus.query('site_live_version_info{remote="legal"}'))[0]?.metric.version;
  const legal = await publishCandidate(settings, 'legal', { from: join(root, 'legal', 'dist') });
  await promote(settings, 'legal', legal, { force: { reason: 'cluster test: metrics' } });
  const live = await until(
    `site_live_version_info{remote="legal",version="${legal}"}`,
    (samples) => samples.length === 2,
  );
  const old = await prometheus.query(`site_live_version_info{remote="legal",version="${before}"}`);
  check(
    'a promote of legal, seen in its live-version series',
    `the new version on ${live.samples.length} servers within ${live.ms} ms; the version before on ${old.length}`,
    live.ok && old.length === 0 && before !== legal,
  );

  // --- N deletion requests through nginx: the sum over the instances is N
  const sent = 12;
  const answers = await Promise.all(
    Array.from(
      { length: sent },
      async (_, i) =>
        (
          await fetch(`${site}/api/delete-account`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Ann Lee', email: `metrics-${i}@example.com`, reason: 'Counted.' }),
          })
        ).status,
    ),
  );
  const summed = await until(
    'sum(api_deletion_requests_total{job="api",outcome="accepted"})',
    (samples) => one(samples) === sent,
  );
  const each = await prometheus.query('api_deletion_requests_total{job="api",outcome="accepted"}');
  check(
    `${sent} deletion requests through nginx, summed over the API`,
    `answered ${answers.filter((status) => status === 202).length}×202; sum ${one(summed.samples)} within ${summed.ms} ms; by instance ${each.map((sample) => sample.value).join(' + ')}`,
    summed.ok && answers.every((status) => status === 202),
  );

  // --- the outbox's oldest age, seen above 0 while the slow mail server takes them, back to 0 once they are sent
  const age = 'max(api_queue_oldest_age_seconds{job="api",queue="mail"})';
  let highest = 0;
  const started = Date.now();
  let drained = false;
  while (Date.now() - started < 60_000) {
    const [oldest, waiting] = await Promise.all([
      prometheus.query(age),
      prometheus.query('max(api_queue_waiting_messages{job="api",queue="mail"})'),
    ]);
    highest = Math.max(highest, one(oldest) ?? 0);
    if (one(oldest) === 0 && one(waiting) === 0 && highest > 0) {
      drained = true;
      break;
    }
    await sleep(250);
  }
  const drainedMs = Date.now() - started;
  const delivered = smtp.received.filter((email) => email.to.some((to) => to.startsWith('metrics-'))).length;
  console.log(`PromQL ${age}\n  -> highest seen ${highest} s, 0 again after ${drainedMs} ms`);
  check(
    "the outbox's oldest age goes back to 0",
    `highest seen ${highest.toFixed(1)} s; 0 with none waiting ${drainedMs} ms after the requests; mails received ${delivered} of ${sent}`,
    drained && delivered === sent,
  );

  // --- request rates by remote, for the routes the checks above visited (and a refused post every 250 ms meanwhile: a
  // series that first appears holding its count shows no rate until it grows)
  const rates = await until('sum by (remote) (rate(http_requests_total[5m]))', (samples) => {
    void fetch(`${site}/api/delete-account`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    return ['vendor', 'consumer', 'business', 'legal', 'api'].every((remote) =>
      samples.some((sample) => sample.metric.remote === remote && sample.value > 0),
    );
  });
  check(
    'request rates by remote',
    shown(rates.samples.filter((sample) => sample.value > 0)).replace(/remote="([^"]+)"/g, '$1'),
    rates.ok,
  );

  // --- the dashboard's queries (ops/grafana/giftwell-site.json) on the recording rules: each queried; those that
  // must have series now (requests, errors, p95, versions, queues, field data, the database) have them
  const queried: { title: string; samples?: Sample[]; error: string }[] = [];
  for (const { title, expr } of dashboardQueries(root)) {
    let samples: Sample[] | undefined;
    let error = '';
    try {
      samples = await prometheus.query(expr);
    } catch (failed) {
      error = (failed as Error).message;
    }
    console.log(`dashboard "${title}": ${expr}\n  -> ${samples ? shown(samples) : error}`);
    queried.push({ title, samples, error });
  }
  const mustShow = [
    'Requests a second by remote',
    'Share answered 5xx by remote',
    'Time to answer, p95, by remote',
    'Database',
    'Live versions',
    'Queues: waiting',
    'Alerts firing',
  ];
  const empty = queried.filter((answer) => mustShow.includes(answer.title) && !answer.samples?.length);
  const failedQueries = queried.filter((answer) => !answer.samples);
  check(
    "the dashboard's queries on this Prometheus",
    `${queried.length} queries of ${new Set(queried.map((answer) => answer.title)).size} panels: ${queried.length - failedQueries.length} answered${failedQueries.length ? ` (failed: ${failedQueries.map((answer) => `${answer.title}: ${answer.error}`).join('; ')})` : ''}; with series: ${queried.filter((answer) => answer.samples?.length).length}${empty.length ? `; empty that should not be: ${empty.map((answer) => answer.title).join(', ')}` : ''}`,
    failedQueries.length === 0 && empty.length === 0,
  );

  // --- promtool check metrics on a scrape of each kind of server
  const linted = await Promise.all(
    [
      ['site server', servers[0]!.port],
      ['API instance', apiPorts[0]!],
    ].map(async ([name, port]) => {
      // What a scrape costs: the median of 20, one after another.
      const times: number[] = [];
      let text = '';
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        times.push(performance.now() - started);
      }
      const scrapeMs = times.sort((a, b) => a - b)[10]!.toFixed(1);
      const run = spawnSync(promtoolBin ?? 'promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      const said = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim();
      console.log(
        `promtool check metrics (${name}, ${text.length} bytes): exit ${run.status}${said ? `\n${said}` : ''}`,
      );
      const families = text.split('\n').filter((line) => line.startsWith('# TYPE')).length;
      const problems = said ? said.split('\n').join('; ') : 'no problems';
      return {
        name,
        ok: run.status === 0,
        figures: `${name}: ${families} families, ${Math.round(text.length / 1024)} KiB in ${scrapeMs} ms, ${problems}`,
      };
    }),
  );
  check(
    'promtool check metrics on a scrape of each',
    linted.map((result) => result.figures).join('; '),
    linted.every((result) => result.ok),
  );

  // --- faults, each seen as its alert firing (the rules' `for:` 2 s here): an API instance killed, PostgreSQL
  // stopped while forms are posted (every process says its database is down; the API's 503s are its server errors),
  // a site server killed. The last checks of the run: they leave the cluster broken.
  const firing = (name: string, ok: (samples: Sample[]) => boolean = (samples) => samples.length > 0, ms = 30_000) =>
    until(`ALERTS{alertname="${name}",alertstate="firing"}`, ok, ms);
  const alive = (child: ChildProcess | undefined) => child && child.exitCode === null && child.signalCode === null;
  apis[1]!.kill('SIGKILL');
  const apiDown = await firing('ApiDown');
  const database = postgres.faults;
  let databaseDown: Awaited<ReturnType<typeof firing>> | undefined;
  let serverErrors: Awaited<ReturnType<typeof firing>> | undefined;
  let formAnswers: number[] = [];
  if (database) {
    database.stopFast();
    // More than one post a second over the rule's 5 minutes: 800 posts, each a 503 while the database is away.
    for (let sent = 0; sent < 800; sent += 20) {
      formAnswers = formAnswers.concat(
        await Promise.all(
          Array.from({ length: 20 }, async (_, i) => {
            const response = await fetch(`${site}/api/delete-account`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ name: 'Ann Lee', email: `outage-${sent + i}@example.com`, reason: 'Fault.' }),
            });
            await response.arrayBuffer();
            return response.status;
          }),
        ),
      );
    }
    // Every process still running says so of itself: a site server and the API instance left.
    databaseDown = await firing('DatabaseDown', (samples) => samples.length >= 3);
    serverErrors = await firing('ServerErrors', (samples) => samples.some((sample) => sample.metric.job === 'api'));
  }
  servers[1]!.child!.kill('SIGKILL');
  const siteDown = await firing('SiteServerDown');
  const answered503 = formAnswers.filter((status) => status === 503).length;
  check(
    'faults seen as their alerts firing',
    [
      `API instance killed: ApiDown firing after ${apiDown.ms} ms`,
      databaseDown
        ? `PostgreSQL stopped: ${answered503} of ${formAnswers.length} posts 503, none 5xx else (${formAnswers.filter((status) => status >= 500 && status !== 503).length}); DatabaseDown firing for ${databaseDown.samples.length} processes after ${databaseDown.ms} ms, ServerErrors for ${serverErrors!.samples.map((sample) => sample.metric.job).join(', ')} after ${serverErrors!.ms} ms`
        : 'PostgreSQL is not this check’s own: not stopped',
      `site server killed: SiteServerDown firing after ${siteDown.ms} ms (${alive(servers[0]!.child) ? 'the other serving' : 'none left'})`,
    ].join('; '),
    apiDown.ok &&
      siteDown.ok &&
      (!database || (databaseDown!.ok && serverErrors!.ok && answered503 === formAnswers.length)),
  );
}

import { parseArgs } from 'node:util';
import { ratingOf, vitalNames, vitalThresholds } from '@gift/contracts/field-data';
import { printable } from '../cli/printable.ts';
import { readConfig } from '../config.ts';
import { databaseName, openMigratedDatabase } from '../db/database.ts';
import { countsLine, waitingFor } from './decision.ts';
import { fieldData, fieldDataRetention, type FieldFigures, type HourFigures } from './repository.ts';

const usage = `How each team's pages do for real visitors (web vitals and errors, per remote, version and route).

  pnpm --filter api rum [--since 24h] [--remote vendor]     views, p75 of each metric and its rating, error rate
  pnpm --filter api rum errors [--since 24h] [--remote vendor]
                                                           the most frequent errors, with the version each started in
  pnpm --filter api rum --by hour --route /vendor [--since 24h]
                                                           one route's trend: views, p75 of each metric, errors, per hour

--since takes minutes (30m), hours (24h) or days (7d); beyond 48h the figures come from hourly roll-ups.
The summary also splits each route's figures by the visitors' screens (phone, desktop) within the 48 hours of raw
reports.
Uses the same DATABASE_URL / DATA_DIR as the service.`;

/** `24h`, `30m`, `7d` as milliseconds; undefined when it is none of these. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+)([mhd])$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'm' | 'h' | 'd'];
}

const formatValue = (name: string, value: number) =>
  name === 'CLS' ? value.toFixed(3) : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;

const p75Cell = (name: (typeof vitalNames)[number], value: number | undefined) =>
  value === undefined ? '-' : `${formatValue(name, value)} ${ratingOf(name, value)}`;

/** Views with at least one error over views: never above 100% (how many errors each reported is `rum errors`). */
const errorRate = (row: { views: number; errorViews: number }) =>
  row.views ? `${((row.errorViews / row.views) * 100).toFixed(1)} %` : '-';

/** Columns padded to their widest cell, two spaces apart. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** The table the teams read: a row per remote, version and route. */
/** A remote as the team names it, by its folder (`share-location`), in every line the command prints. */
const folderOf = (remote: string) => remote.replace(/_/g, '-');

export function figuresTable(figures: FieldFigures[]): string {
  const rows = [...figures]
    .sort(
      (a, b) =>
        a.remote.localeCompare(b.remote) || a.version.localeCompare(b.version) || a.route.localeCompare(b.route),
    )
    .map((row) => [
      folderOf(row.remote),
      row.version,
      row.route,
      String(row.views),
      ...vitalNames.map((name) => p75Cell(name, row.p75[name])),
      errorRate(row),
    ]);
  return table(
    ['remote', 'version', 'route', 'views', ...vitalNames.map((name) => `${name} p75`), 'views w/ error'],
    rows,
  );
}

/** The same figures split by the visitors' screens: a row per remote, route and device, every version together. */
export function deviceTable(figures: FieldFigures[]): string {
  const rows = [...figures]
    .sort(
      (a, b) =>
        a.remote.localeCompare(b.remote) ||
        a.route.localeCompare(b.route) ||
        (a.device ?? '').localeCompare(b.device ?? ''),
    )
    .map((row) => [
      folderOf(row.remote),
      row.route,
      row.device ?? '-',
      String(row.views),
      ...vitalNames.map((name) => p75Cell(name, row.p75[name])),
    ]);
  return table(['remote', 'route', 'device', 'views', ...vitalNames.map((name) => `${name} p75`)], rows);
}

/** One route's trend: a row per hour, oldest first. */
export function hourTable(hours: HourFigures[]): string {
  const rows = hours.map((hour) => [
    `${hour.hour.slice(0, 13).replace('T', ' ')}:00`,
    String(hour.views),
    ...vitalNames.map((name) => p75Cell(name, hour.p75[name])),
    errorRate(hour),
  ]);
  return table(['hour (UTC)', 'views', ...vitalNames.map((name) => `${name} p75`), 'views w/ error'], rows);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: 'string', default: '24h' },
      remote: { type: 'string' },
      by: { type: 'string' },
      route: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command = 'summary'] = positionals;
  if (values.help || !['summary', 'errors'].includes(command)) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  const window = durationMs(values.since);
  if (window === undefined) {
    console.error(`--since takes a time such as 30m, 24h or 7d, not "${printable(values.since)}".`);
    return 2;
  }
  if (values.by !== undefined && (values.by !== 'hour' || command !== 'summary' || !values.route)) {
    console.error('--by takes "hour", with --route naming one page (--route /vendor).');
    return 2;
  }
  const since = new Date(Date.now() - window);
  // A remote by its federation name or its folder (`share_location` or `share-location`).
  const remote = values.remote?.replace(/-/g, '_');
  const config = readConfig();
  // On standard error, so that an export piped to a file stays the export alone.
  console.error(`Database: ${databaseName(config)}`);
  const db = await openMigratedDatabase(config);
  try {
    const data = fieldData(db);
    if (command === 'errors') {
      const errors = await data.topErrors({ since, remote });
      if (!errors.length) {
        console.log(`No errors reported since ${since.toISOString()}.`);
        return 0;
      }
      for (const error of errors) {
        console.log(
          `${String(error.count).padStart(6)}  ${folderOf(error.remote)}  ${printable(error.message)}\n` +
            `        first in ${error.firstVersion} at ${error.firstSeen}${error.frame ? `, ${printable(/^at /.test(error.frame) ? error.frame : `at ${error.frame}`)}` : ''}` +
            (error.versions.size > 1
              ? `; also in ${[...error.versions].filter((v) => v !== error.firstVersion).join(', ')}`
              : ''),
        );
      }
      return 0;
    }
    if (values.by === 'hour') {
      const hours = await data.hourlyTrend({ since, route: values.route!, remote });
      if (!hours.length) {
        console.log(`No field data for ${printable(values.route!)} since ${since.toISOString()}.`);
        return 0;
      }
      console.log(`${printable(values.route!)}, an hour a row, since ${since.toISOString()}:\n`);
      console.log(hourTable(hours));
      return 0;
    }
    const { figures, exact } = await data.figures({ since, remote });
    if (!figures.length) {
      console.log(`No field data since ${since.toISOString()}${values.remote ? ` for ${values.remote}` : ''}.`);
      return 0;
    }
    console.log(
      `Field data since ${since.toISOString()} (${exact ? 'every report' : 'hourly roll-ups: p75 approximate'}):\n`,
    );
    console.log(figuresTable(figures));
    const deviceSince = exact ? since : new Date(Date.now() - fieldDataRetention.rawHours * 3_600_000);
    const devices = await data.deviceFigures({ since: deviceSince, remote });
    if (devices.length) {
      console.log(
        `\nBy the visitors' screens, every version together${exact ? '' : ' (the last 48 hours: the hourly roll-ups do not keep the split)'}:\n`,
      );
      console.log(deviceTable(devices));
    }
    // What a release decision may count of each version (the raw reports' 48 hours): a flood shows as many reports
    // from few networks, few counted.
    const countedSince = new Date(Math.max(since.getTime(), Date.now() - fieldDataRetention.rawHours * 3_600_000));
    const versions = [...new Set(figures.map((row) => `${row.remote} ${row.version}`))].sort();
    console.log(`\nWhat the release watch counts, since ${countedSince.toISOString()}:\n`);
    for (const key of versions) {
      const [remoteName, version] = key.split(' ') as [string, string];
      const counted = await data.countedFigures({
        remote: remoteName,
        version,
        since: countedSince,
        maxPerNetwork: config.releaseWatch.maxPerNetwork,
        reports: true,
      });
      const waiting = waitingFor(counted, config.releaseWatch);
      console.log(
        `  ${folderOf(remoteName)} ${printable(version)}: ${countsLine(counted)}${waiting ? `; ${waiting}` : ''}`,
      );
    }
    const used = await data.rawBytes();
    console.log(
      `\nSpace: the raw reports take ${(used / 1024 / 1024).toFixed(1)} MiB of FIELD_DATA_MAX_MB ` +
        `${(config.fieldDataMaxBytes / 1024 / 1024).toLocaleString('en-US')} MiB` +
        (used >= config.fieldDataMaxBytes ? ': over it, new reports are sampled.' : '.'),
    );
    console.log(
      `\nRatings by web-vitals' thresholds (Good at most / Poor above): ${vitalNames
        .map(
          (name) =>
            `${name} ${formatValue(name, vitalThresholds[name].good)} / ${formatValue(name, vitalThresholds[name].poor)}`,
        )
        .join(', ')}.`,
    );
    return 0;
  } finally {
    await db.destroy();
  }
}

process.exitCode = await main(process.argv.slice(2));

// roll-up: the hourly figures written from the raw reports, and what is past its retention purged.
import type { Db } from '../db/database.ts';
import type { FieldHourTable } from '../db/schema.ts';
import { batchRows, yieldToOthers } from './batches.ts';
import { hourMs, keyOf, maxErrorMessages, otherErrors, percentile, rawEntries } from './figures.ts';
import { networkHasher } from './networks.ts';
import { fieldDataRetention } from './storage.ts';

export function rollUps(db: Db, now: () => Date) {
  const { eachEntry } = rawEntries(db);
  return {
    /**
     * Writes the hourly figures of the hour that starts at `hour` from the raw entries (again, when it was written
     * before: the hour may have been incomplete then).
     */
    async rollUp(hour: Date) {
      const start = new Date(Math.floor(hour.getTime() / hourMs) * hourMs);
      const end = new Date(start.getTime() + hourMs);
      type Group = Omit<FieldHourTable, 'hour' | 'p75' | 'p95'> & { values: number[] };
      const groups = new Map<string, Group>();
      const add = (key: string, fresh: () => Group, count: number, value: number | null) => {
        let group = groups.get(key);
        if (!group) groups.set(key, (group = fresh()));
        group.count += count;
        if (value !== null) group.values.push(value);
      };
      await eachEntry({ since: start, until: end }, (row) =>
        add(
          `${keyOf(row)}\u0000${row.kind}\u0000${row.name}`,
          () => ({
            remote: row.remote,
            version: row.version,
            route: row.route,
            kind: row.kind,
            name: row.name,
            count: 0,
            values: [],
          }),
          row.count,
          row.value,
        ),
      );
      // The most frequent messages of each version are kept by name; the rest, however many, are one row.
      const messages = new Map<string, Map<string, number>>();
      for (const group of groups.values()) {
        if (group.kind !== 'error') continue;
        const version = `${group.remote}\u0000${group.version}`;
        if (!messages.has(version)) messages.set(version, new Map());
        const counts = messages.get(version)!;
        counts.set(group.name, (counts.get(group.name) ?? 0) + group.count);
      }
      for (const [version, counts] of messages) {
        if (counts.size <= maxErrorMessages) continue;
        const kept = new Set(
          [...counts]
            .sort((a, b) => b[1] - a[1])
            .slice(0, maxErrorMessages)
            .map(([name]) => name),
        );
        const folded = [...groups].filter(
          ([, group]) =>
            group.kind === 'error' &&
            `${group.remote}\u0000${group.version}` === version &&
            !kept.has(group.name) &&
            group.name !== otherErrors,
        );
        for (const [key, group] of folded) {
          groups.delete(key);
          add(
            `${keyOf(group)}\u0000error\u0000${otherErrors}`,
            () => ({ ...group, name: otherErrors, count: 0, values: [] }),
            group.count,
            null,
          );
        }
      }
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('field_hours').where('hour', '=', start.toISOString()).execute();
        const values = [...groups.values()].map(({ values: samples, ...group }) => ({
          ...group,
          hour: start.toISOString(),
          p75: percentile(samples, 0.75) ?? null,
          p95: percentile(samples, 0.95) ?? null,
        }));
        // In slices: SQLite takes at most 32,766 bound values a statement.
        for (let i = 0; i < values.length; i += 500) {
          await trx
            .insertInto('field_hours')
            .values(values.slice(i, i + 500))
            .execute();
        }
      });
      return groups.size;
    },

    /**
     * The hourly figures of the last two hours and this one so far; raw entries past 48 hours (with the networks' keys
     * of their days) and figures past 90 days go, a batch at a time.
     */
    async rollUpAndPurge() {
      const at = now().getTime();
      for (const back of [2, 1, 0]) await this.rollUp(new Date(at - back * hourMs));
      const rawBefore = new Date(at - fieldDataRetention.rawHours * hourMs);
      let raw = 0;
      for (const table of ['field_views', 'field_errors'] as const) {
        for (;;) {
          const deleted = await db
            .deleteFrom(table)
            .where('id', 'in', (query) =>
              query
                .selectFrom(table)
                .select('id')
                .where('received_at', '<', rawBefore.toISOString())
                .limit(batchRows * 5),
            )
            .executeTakeFirst();
          raw += Number(deleted.numDeletedRows);
          if (Number(deleted.numDeletedRows) < batchRows * 5) break;
          await yieldToOthers();
        }
      }
      // The views and goals of those hours (an hour's at a time, as the purge runs hourly).
      for (const table of ['field_counted', 'field_goals'] as const) {
        const deleted = await db
          .deleteFrom(table)
          .where('received_at', '<', rawBefore.toISOString())
          .executeTakeFirst();
        raw += Number(deleted.numDeletedRows);
      }
      await networkHasher(db).purge(rawBefore);
      const hours = await db
        .deleteFrom('field_hours')
        .where('hour', '<', new Date(at - fieldDataRetention.hourlyDays * 24 * hourMs).toISOString())
        .executeTakeFirst();
      return { raw, hours: Number(hours.numDeletedRows) };
    },
  };
}

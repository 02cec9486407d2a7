import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, openMigratedDatabase, type Db } from './database.ts';

const opened: Db[] = [];
let dataDir: string;
afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SQLite shared by the service and the operators’ CLI', () => {
  it('commits a transaction that reads then writes, whatever another connection writes meanwhile', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sqlite-tx-'));
    // Two connections to one file, as the service and `pnpm --filter api requests complete` have.
    const cli = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
    const service = await openDatabase({ databaseUrl: undefined, dataDir });
    opened.push(cli, service);
    // The service's write gives up after 100 ms (the same thread holds the other connection: it cannot wait longer).
    await sql`pragma busy_timeout = 100`.execute(service);
    let serviceWrite = 'not tried';
    await cli.transaction().execute(async (trx) => {
      await trx.selectFrom('deletion_requests').select('reference').execute();
      // The service writes between the CLI's read and its write.
      try {
        await sql`insert into leases (name, holder, until) values ('x', 'service', '2027-01-01')`.execute(service);
        serviceWrite = 'written';
      } catch (error) {
        serviceWrite = (error as { code?: string }).code ?? String(error);
      }
      await sql`insert into leases (name, holder, until) values ('y', 'cli', '2027-01-01')`.execute(trx);
    });
    // The CLI's transaction held the write lock from its start: the service waited (and, here, gave up), and the CLI's
    // write was never the one refused (a deferred start failed it with SQLITE_BUSY, which no wait mends).
    expect(serviceWrite).toBe('SQLITE_BUSY');
    const { rows } = await sql<{ name: string }>`select name from leases where name in ('x', 'y')`.execute(cli);
    expect(rows).toEqual([{ name: 'y' }]);
  });
});

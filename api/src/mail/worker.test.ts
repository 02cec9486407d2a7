import { describe, expect, it, vi } from 'vitest';
import { readConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { deletionRequests } from '../deletion-requests/repository.ts';
import { freePort, sqliteDatabase } from '../../test/databases.ts';
import { startOutboxWorker } from './worker.ts';

const logger = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });
const warnings = (log: ReturnType<typeof logger>) => log.warn.mock.calls.map(([, message]) => String(message));

/** Runs the worker `times` times, one after the other, as its timer would. */
async function runs(worker: ReturnType<typeof startOutboxWorker>, times: number) {
  for (let run = 0; run < times; run++) {
    worker.kick();
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe('the outbox worker, when what it needs fails', () => {
  it('says once at warn that sending mail fails, with the reason, not at every run', async () => {
    const { db, dataDir } = await sqliteDatabase();
    for (const email of ['ann@example.com', 'bob@example.com'])
      await deletionRequests(db, { siteUrl: 'https://gifts.example' }).submit({ name: 'A', email, reason: 'r' });
    const config = readConfig({ DATA_DIR: dataDir, SMTP_URL: `smtp://127.0.0.1:${await freePort()}` });
    const log = logger();
    const worker = startOutboxWorker(db, config, log as never);
    await runs(worker, 4);
    await worker.stop();
    expect(warnings(log)).toEqual([
      expect.stringMatching(
        /^sending mail fails: .*ECONNREFUSED.*; each one tried again 30 s after it failed, then twice as long each time, at most an hour apart$/,
      ),
    ]);
    expect(log.error).not.toHaveBeenCalled();
    await db.destroy();
  });

  it('says once that the database is away, however many runs fail on it', async () => {
    const db = await openDatabase({
      databaseUrl: `postgres://postgres@127.0.0.1:${await freePort()}/site`,
      dataDir: '',
    });
    const log = logger();
    const worker = startOutboxWorker(db, readConfig({}), log as never);
    await runs(worker, 5);
    await worker.stop();
    expect(warnings(log)).toEqual([expect.stringMatching(/^the outbox \(its database\) fails: .*ECONNREFUSED/)]);
    expect(log.error).not.toHaveBeenCalled();
    await db.destroy();
  });
});

import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openMigratedDatabase, type Db } from '../db/database.ts';
import { deletionRequests } from '../deletion-requests/repository.ts';
import { postgresDatabaseUrl, postgresServer, sqliteDatabase } from '../../test/databases.ts';
import { emailedToken } from '../../test/inbox.ts';
import { main } from './requests.ts';

const postgres = await postgresServer();
if (!postgres && process.env.CI) throw new Error('CI must run the storage tests against PostgreSQL too');
afterAll(() => postgres?.stop());

/** The environment the CLI reads its database from, for each backend. */
const backends: [string, () => Promise<NodeJS.ProcessEnv>][] = [
  ['SQLite', async () => ({ DATA_DIR: (await sqliteDatabase()).dataDir, DATABASE_URL: '' })],
];
if (postgres) backends.push(['PostgreSQL', async () => ({ DATABASE_URL: await postgresDatabaseUrl(postgres.url) })]);

/** What an operator's terminal shows for one command, and its exit code. */
async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts) => void out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  try {
    return { code: await main(args), out: out.join('\n'), err: err.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

const day = 86_400_000;

describe.each(backends)('the operators’ CLI on the outcomes of requests, on %s', (_name, environment) => {
  let db: Db;
  const saved = { ...process.env };

  beforeEach(async () => {
    Object.assign(process.env, await environment(), {
      WEBHOOK_URL: 'http://127.0.0.1:1/hooks',
      WEBHOOK_SECRET: 's'.repeat(32),
    });
    db = await openMigratedDatabase({
      databaseUrl: process.env.DATABASE_URL || undefined,
      dataDir: process.env.DATA_DIR ?? '',
    });
  });
  afterEach(async () => {
    await db.destroy();
    process.env = { ...saved };
  });

  /** A confirmed request received `daysAgo` days ago. */
  async function confirmedRequest(email: string, daysAgo: number) {
    const requests = deletionRequests(db, { now: () => new Date(Date.now() - daysAgo * day), webhooks: true });
    const { reference } = await requests.submit({ name: 'Ann', email, reason: 'r' });
    await requests.confirm(await emailedToken(db, reference));
    return reference;
  }

  it('lists the requests due soon with an overdue marker, and the exports agree on the days left', async () => {
    const overdue = await confirmedRequest('late@example.com', 40);
    const soon = await confirmedRequest('soon@example.com', 27);
    const fresh = await confirmedRequest('fresh@example.com', 1);
    const due = await run('list', '--due-within', '5');
    expect(due.out).toMatch(new RegExp(`${overdue} .*OVERDUE \\d+d`));
    expect(due.out).toMatch(new RegExp(`${soon} .*\\dd left`));
    expect(due.out).not.toContain(fresh);
    expect((await run('list')).out).toContain(fresh);
    expect((await run('list', '--due-within', 'soon')).code).toBe(2);

    const json = JSON.parse((await run('export', '--format', 'json')).out) as {
      reference: string;
      deadline: string;
      daysLeft: number;
    }[];
    const csv = (await run('export')).out.trim().split('\n');
    expect(csv[0]).toBe('reference,status,received_at,verified_at,deadline,days_left,name,email,reason');
    for (const request of json) {
      const row = csv.find((line) => line.startsWith(`"${request.reference}"`))!;
      expect(row).toContain(`"${request.deadline}","${request.daysLeft}"`);
    }
    expect(json.find((request) => request.reference === overdue)!.daysLeft).toBeLessThan(0);
  });

  it('extends a deadline with a reason, shows it and the emails, and refuses a second long one', async () => {
    const reference = await confirmedRequest('ann@example.com', 3);
    const before = JSON.parse((await run('export', '--format', 'json')).out)[0];
    expect((await run('extend', reference, '--by', '1')).err).toMatch(/needs a --reason/);
    const extended = await run('extend', reference, '--by', '1', '--reason', 'Orders still open.');
    expect(extended.code).toBe(0);
    expect(extended.out).toMatch(new RegExp(`${reference} is now due by \\d{4}-\\d\\d-\\d\\d`));
    const after = JSON.parse((await run('export', '--format', 'json')).out)[0];
    expect(after.daysLeft - before.daysLeft).toBeGreaterThanOrEqual(28);
    const refused = await run('extend', reference, '--by', '2', '--reason', 'More');
    expect(refused).toMatchObject({ code: 1, err: expect.stringMatching(/already extended by 1/) });

    const shown = (await run('show', reference)).out;
    expect(shown).toMatch(/deadline: +\d{4}-/);
    expect(shown).toContain('deadline extended by 1 month(s): Orders still open.');
    expect(shown).toMatch(/Emails:\n.*Confirm your account deletion request.*\n.*We need more time/);
    expect(shown).toMatch(/Webhook events:\n.*received.*\n.*verified.*\n.*extended/);
  });

  it('refuses a rejection without a reason, and lists and re-sends webhook events', async () => {
    const reference = await confirmedRequest('ann@example.com', 3);
    expect((await run('reject', reference)).code).toBe(2);
    expect((await run('reject', reference, '--note', 'Not the owner')).code).toBe(0);
    const listed = (await run('webhooks')).out;
    expect(listed).toMatch(new RegExp(`${reference}  rejected +waiting \\(0 tries\\)`));
    const [latest] = JSON.parse((await run('webhooks', '--json')).out) as { id: number }[];
    await db.updateTable('webhook_deliveries').set({ failed_at: new Date().toISOString(), attempts: 12 }).execute();
    expect((await run('webhooks')).out).toContain('GAVE UP');
    expect((await run('webhooks', 'resend', String(latest!.id))).code).toBe(0);
    expect((await run('webhooks')).out).toMatch(new RegExp(`${reference}  rejected +waiting \\(0 tries\\)`));
    expect((await run('webhooks', 'resend', '99999')).code).toBe(1);
  });
});

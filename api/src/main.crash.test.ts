import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openMigratedDatabase } from './db/database.ts';
import { deletionRequests } from './deletion-requests/repository.ts';

const apiRoot = fileURLToPath(new URL('..', import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startService(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: apiRoot,
    env: { ...process.env, DATA_DIR: dataDir, API_PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_PER_IP: '100000' },
    stdio: 'ignore',
  });
  for (let attempt = 0; attempt < 150; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error('The API service did not start');
}

describe('a crash mid-stream', () => {
  it('loses no request that was answered 202', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'api-crash-'));
    const port = await freePort();
    const service = await startService(dataDir, port);
    const accepted: string[] = [];
    let sent = 0;
    let killed = false;

    const sender = async (worker: number) => {
      while (!killed) {
        const index = sent++;
        try {
          const response = await fetch(`http://127.0.0.1:${port}/api/delete-account`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              name: `User ${index}`,
              email: `user${worker}-${index}@example.com`,
              reason: 'crash test',
            }),
          });
          if (response.status === 202) accepted.push(((await response.json()) as { reference: string }).reference);
        } catch {
          // Requests in flight when the process dies get no answer; they were never promised.
        }
      }
    };
    const senders = Array.from({ length: 6 }, (_, worker) => sender(worker));
    while (accepted.length < 150) await new Promise((resolve) => setTimeout(resolve, 10));
    service.kill('SIGKILL');
    killed = true;
    await Promise.all(senders);

    const restarted = await startService(dataDir, port);
    const db = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
    const stored = new Set((await deletionRequests(db).list({ openOnly: false })).map((request) => request.reference));
    await db.destroy();
    restarted.kill('SIGTERM');

    expect(accepted.length).toBeGreaterThanOrEqual(150);
    expect(accepted.filter((reference) => !stored.has(reference))).toEqual([]);
    console.log(
      `crash test: ${sent} sent, ${accepted.length} answered 202, all ${accepted.length} found after kill -9`,
    );
  }, 60_000);
});

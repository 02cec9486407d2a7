import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
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

describe('SIGTERM', () => {
  it('lets a request already in flight finish with its 202, then exits cleanly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'api-drain-'));
    const port = await freePort();
    const service = await startService(dataDir, port);
    const exited = new Promise<number | null>((resolve) => service.on('exit', (code) => resolve(code)));
    const body = JSON.stringify({ name: 'Slow Sender', email: 'slow@example.com', reason: 'draining' });

    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/delete-account',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      // Half the body now, SIGTERM, then the rest: the request is in flight when the signal arrives.
      request.write(body.slice(0, 20));
      setTimeout(() => {
        service.kill('SIGTERM');
        setTimeout(() => request.end(body.slice(20)), 300);
      }, 200);
    });

    const { status, body: response } = await answer;
    expect(status).toBe(202);
    expect(await exited).toBe(0);
    const db = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
    expect(JSON.parse(response)).toEqual({ status: 'received' });
    const stored = await deletionRequests(db).list({ openOnly: true });
    await db.destroy();
    expect(stored.map((request) => request.email)).toEqual(['slow@example.com']);
  }, 30_000);
});

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
        const email = `user${worker}-${index}@example.com`;
        try {
          const response = await fetch(`http://127.0.0.1:${port}/api/delete-account`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: `User ${index}`, email, reason: 'crash test' }),
          });
          if (response.status === 202) accepted.push(email);
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
    const stored = new Set((await deletionRequests(db).list({ openOnly: false })).map((request) => request.email));
    await db.destroy();
    restarted.kill('SIGTERM');

    expect(accepted.length).toBeGreaterThanOrEqual(150);
    expect(accepted.filter((email) => !stored.has(email))).toEqual([]);
    console.log(
      `crash test: ${sent} sent, ${accepted.length} answered 202, all ${accepted.length} found after kill -9`,
    );
  }, 60_000);
});

describe('durability settings', () => {
  it('runs SQLite in WAL mode with synchronous=FULL: a killed process loses nothing either way, a power cut only so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'api-pragmas-'));
    const db = await openMigratedDatabase({ databaseUrl: undefined, dataDir });
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(2); // FULL
    await db.destroy();
  });
});

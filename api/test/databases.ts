import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openMigratedDatabase, type Db } from '../src/db/database.ts';

/** A fresh SQLite file in its own temporary folder. */
export async function sqliteDatabase(): Promise<{ db: Db; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-sqlite-'));
  return { db: await openMigratedDatabase({ databaseUrl: undefined, dataDir }), dataDir };
}

function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const version = readdirSync(base).sort().at(-1);
  const bin = version && join(base, version, 'bin');
  return bin && existsSync(join(bin, 'initdb')) ? bin : undefined;
}

/** A port nobody listens on now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** What the fault suite does to the throwaway server: stop it as an operator does, start it again, freeze it. */
export interface PostgresFaults {
  stopFast: () => void;
  startAgain: () => Promise<void>;
  freeze: () => void;
  thaw: () => void;
}

let cluster: Promise<{ url: string; stop: () => void; faults?: PostgresFaults } | undefined> | undefined;

/**
 * A PostgreSQL server for the storage tests: TEST_DATABASE_URL when set, otherwise a throwaway cluster
 * on 127.0.0.1 from Debian's postgresql package when it is installed. Undefined when neither is there.
 */
export function postgresServer() {
  cluster ??= (async () => {
    if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: () => {} };
    const bin = postgresBin();
    if (!bin) {
      console.warn('No PostgreSQL here (apt-get install postgresql): the storage tests run on SQLite only.');
      return undefined;
    }
    const dir = mkdtempSync(join(tmpdir(), 'api-pg-'));
    chmodSync(dir, 0o777);
    const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
    const run = (command: string, args: string[]) =>
      asPostgres.length
        ? execFileSync(asPostgres[0]!, [...asPostgres.slice(1), command, ...args], { stdio: 'pipe' })
        : execFileSync(command, args, { stdio: 'pipe' });
    run(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres']);
    const port = await freePort();
    const args = [
      '-D',
      join(dir, 'data'),
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-k',
      dir,
      '-c',
      'fsync=off',
    ];
    const startPostgres = (): ChildProcess =>
      asPostgres.length
        ? spawn(asPostgres[0]!, [...asPostgres.slice(1), join(bin, 'postgres'), ...args], { stdio: 'ignore' })
        : spawn(join(bin, 'postgres'), args, { stdio: 'ignore' });
    let server = startPostgres();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        const client = new pg.Client(url);
        await client.connect();
        await client.end();
        // pg_ctl waits until the server is down: a signal to runuser does not always reach postgres before the
        // test process exits, which left clusters running.
        const stop = () => {
          try {
            run(join(bin, 'pg_ctl'), ['stop', '-D', join(dir, 'data'), '-m', 'immediate', '-w']);
          } catch {
            server.kill('SIGKILL');
          }
        };
        // The fault suite's hands on the server: stopped as an operator stops it, started again, frozen.
        const postmaster = () =>
          readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8')
            .split('\n')[0]!
            .trim();
        const everyProcess = () => {
          const pid = postmaster();
          // Its children by /proc (pgrep is not on every machine): field 4 of a process's stat is its parent.
          const children = readdirSync('/proc').filter((entry) => {
            if (!/^\d+$/.test(entry)) return false;
            try {
              return (
                readFileSync(`/proc/${entry}/stat`, 'utf8')
                  .replace(/^.*\) /s, '')
                  .split(' ')[1] === pid
              );
            } catch {
              return false;
            }
          });
          return [pid, ...children].map(Number);
        };
        const faults: PostgresFaults = {
          stopFast: () => run(join(bin, 'pg_ctl'), ['stop', '-D', join(dir, 'data'), '-m', 'fast', '-w']),
          async startAgain() {
            server = startPostgres();
            for (let wait = 0; wait < 100; wait++) {
              try {
                const client = new pg.Client(url);
                await client.connect();
                await client.end();
                return;
              } catch {
                await new Promise((resolve) => setTimeout(resolve, 100));
              }
            }
            throw new Error('PostgreSQL did not start again');
          },
          freeze: () => everyProcess().forEach((pid) => process.kill(pid, 'SIGSTOP')),
          // runuser stops itself when its child stops (as a shell's job control would): it is woken too.
          thaw: () => [...everyProcess(), server.pid!].forEach((pid) => process.kill(pid, 'SIGCONT')),
        };
        return { url, stop, faults };
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    server.kill('SIGKILL');
    throw new Error('The throwaway PostgreSQL server did not start');
  })();
  return cluster;
}

/** The address of a fresh, empty database on the PostgreSQL server. */
export async function postgresDatabaseUrl(serverUrl: string): Promise<string> {
  const name = `test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client(serverUrl);
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh database on the PostgreSQL server, migrated. */
export async function postgresDatabase(serverUrl: string): Promise<Db> {
  return openMigratedDatabase({ databaseUrl: await postgresDatabaseUrl(serverUrl), dataDir: '' });
}

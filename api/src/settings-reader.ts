import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { resolve, sep } from 'node:path';

/**
 * How both servers read their settings: every wrong or missing value is noted as it is read and the reading goes on
 * with a stand-in, so that one start names them all (`SettingsError`), not one per start.
 */

/** Every setting that stopped a start, each in a sentence that names it. */
export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join(' '));
  }
}

export interface SettingsReader {
  /** What `read` gives, or `standIn` when it throws: its message is noted as one of the problems. */
  take<T>(read: () => T, standIn: T): T;
  /** Throws the problems noted, if any, as one `SettingsError`. */
  done(): void;
}

export function settingsReader(): SettingsReader {
  const problems: string[] = [];
  return {
    take(read, standIn) {
      try {
        return read();
      } catch (error) {
        const found = error instanceof SettingsError ? error.problems : [(error as Error).message];
        problems.push(...found.map((problem) => (/[.!?]$/.test(problem) ? problem : `${problem}.`)));
        return standIn;
      }
    },
    done() {
      if (problems.length) throw new SettingsError(problems);
    },
  };
}

/** A port from `name` (1-65535), or `fallback` when unset. */
export function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65_535) {
    throw new Error(`${name} must be a port from 1 to 65535, not "${value}"`);
  }
  return Number(value);
}

/** The scheme of an address (`https:`), or undefined when it is not one. */
export function schemeOf(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

/** An http(s) address from `name`, or undefined when unset. */
export function httpAddress(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  const scheme = schemeOf(value);
  if (scheme !== 'http:' && scheme !== 'https:') {
    throw new Error(`${name} must be an http(s) address such as https://gifts.example, not "${value}"`);
  }
  return value;
}

/** A secret or token from `name` of 32 characters or more, or undefined when unset. */
export function secret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  if (!value) return undefined;
  if (value.length < 32) throw new Error(`${name} must be at least 32 characters long (openssl rand -hex 32)`);
  return value;
}

/** DATABASE_URL: a PostgreSQL address, or undefined (SQLite under DATA_DIR). */
export function databaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.DATABASE_URL;
  if (!value) return undefined;
  const scheme = schemeOf(value);
  if (scheme !== 'postgres:' && scheme !== 'postgresql:') {
    throw new Error('DATABASE_URL must be a PostgreSQL address, postgres://user:password@host:5432/database');
  }
  return value;
}

/**
 * A folder a server keeps data in: made if missing, and written to by this process's user, or a problem naming it.
 * Made one level at a time: Node's recursive mkdir loops for ever where a level cannot be made and is not there
 * (under /proc), at full CPU.
 */
export function usableFolder(name: string, path: string) {
  try {
    const levels = resolve(path).split(sep).slice(1);
    levels.forEach((_, index) => {
      const level = sep + levels.slice(0, index + 1).join(sep);
      if (!existsSync(level)) mkdirSync(level);
    });
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    throw new Error(`${name} "${path}" cannot be made or written by this user (${code})`);
  }
}

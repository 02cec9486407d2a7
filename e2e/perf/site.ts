import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The production build served as `pnpm start` serves it, on 127.0.0.1:`port`; stop it with `.kill()`. */
export function startSite(port: number, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['bin/site-server.mjs', '--local'], {
    cwd: `${root}/site-server`,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: `${root}/e2e/.data`,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function waitFor(url: string) {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${url} did not answer`);
}

/**
 * PERF_TIMING=report (as CI runs it): timing budgets (Lighthouse's Performance score, LCP and TBT; first paint to
 * hydrated) are printed and a miss is reported, not failed. On this shared two-core host they move with the machine
 * more than with the code: on 2026-11-24 the last landed build missed them as much as the new one, measured in one
 * run. The other budgets (accessibility, best practices, SEO, CLS, bytes and requests of JavaScript, the dead
 * window) still fail the run. Without it, `pnpm perf` fails on every budget.
 */
export const timingReportOnly = process.env.PERF_TIMING === 'report';

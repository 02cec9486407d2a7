import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The production build served as `pnpm start` serves it, on 127.0.0.1:`port`; stop it with `.kill()`. `from`: another
 * checkout of the site, built (a bench's "before").
 */
export function startSite(port: number, env: Record<string, string> = {}, from = root): ChildProcess {
  return spawn(process.execPath, ['bin/site-server.mjs', '--local'], {
    cwd: `${from}/site-server`,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: `${from}/e2e/.data`,
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
 * Two jobs, two commands. PERF_MODE=budgets (`pnpm perf`, as CI runs it): the figures that do not depend on the host's
 * speed (accessibility, best practices and SEO from one Lighthouse run a route, CLS, bytes and requests on the line
 * before hydration, the collector's bytes, the dead window), each measured once and judged; no floor is loaded and no
 * timing is judged. Without it (`pnpm bench`): every figure, the timings beside the React floor in the same run, all
 * judged: on this shared two-core host a timing follows the machine as much as the code, so it is measured on a quiet
 * machine, not in CI.
 */
export const budgetsOnly = process.env.PERF_MODE === 'budgets';
/** Timing budgets are printed and not failed: in budgets mode, or with PERF_TIMING=report. */
export const timingReportOnly = budgetsOnly || process.env.PERF_TIMING === 'report';

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { devPorts } from '@gift/federation';
import { chromiumArgs, chromiumPath } from './chromium.ts';

/** The data of this run's `pnpm dev`: its own folder, so that a developer's `.data` is never touched. */
export const devDataDir = process.env.DEV_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'dev-journeys-'));
process.env.DEV_DATA_DIR = devDataDir;
// The whole stack on moved ports, as a second checkout runs it beside the first (docs/configuration.md): every dev
// server, the API behind the shell's proxy and the mail catcher must follow.
process.env.DEV_PORT_OFFSET ??= '7';
export const ports = devPorts(process.env);

/** Journeys against `pnpm dev` as a developer runs it: Vite dev servers, the API, the mail catcher. */
export default defineConfig({
  testDir: './dev-tests',
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: {
    baseURL: `http://localhost:${ports.shell}`,
    trace: 'retain-on-failure',
    launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 } } }],
  webServer: {
    command: 'pnpm dev',
    cwd: '..',
    url: `http://127.0.0.1:${ports.mail}`,
    env: { DATA_DIR: devDataDir },
    reuseExistingServer: false,
    timeout: 180_000,
  },
});

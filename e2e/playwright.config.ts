import { fileURLToPath } from 'node:url';
import { defineConfig, devices } from '@playwright/test';
import { chromiumArgs, chromiumPath } from './chromium.ts';

const port = Number(process.env.E2E_PORT ?? 4310);
export const baseURL = `http://127.0.0.1:${port}`;
/** Where the server under test stores deletion requests; the tests read it through the operators' CLI. */
export const dataDir = fileURLToPath(new URL('./.data', import.meta.url));

/** Journeys across the composed site, served from production builds as `pnpm start` serves them. */
export default defineConfig({
  // Every remote published once for the run; each release journey file copies that deploy folder.
  globalSetup: './global-setup.ts',
  // Baselines of the screenshot suite, one per name, committed beside the tests (no per-platform copies).
  snapshotPathTemplate: '{testDir}/__screenshots__/{arg}{ext}',
  fullyParallel: true,
  // Three on two cores: many journeys wait (on a server of their own, a release's checks, a timeout, a throttled
  // line) more than they compute. E2E_WORKERS sets another number.
  workers: Number(process.env.E2E_WORKERS ?? 3),
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  timeout: 30_000,
  expect: { timeout: 7_000 },
  use: {
    baseURL,
    // Recording a trace costs every test its time (80 journeys: 156-170 s with one kept on failure, 134-136 s
    // without): on CI, where a failing test is run again, only that second run records one.
    trace: process.env.CI ? 'on-first-retry' : 'retain-on-failure',
    launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
  },
  projects: [
    {
      name: 'chromium',
      testDir: './tests',
      use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 } },
    },
    // Firefox and WebKit from Debian's packages (engines/engines.ts); Chromium draws the screenshots they are compared with.
    { name: 'engines', testDir: './engines', use: { ...devices['Desktop Chrome'] } },
  ],
  webServer: {
    command: 'pnpm --filter site-server serve',
    url: `${baseURL}/remotes.json`,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_IP: '1000',
      // Every page view of every journey sends its field-data beacon from this one address.
      RUM_LIMIT_PER_IP: '100000',
      PUBLIC_SITE_URL: baseURL,
      OUTBOX_INTERVAL_MS: '200',
      // The production server (React's production build); the local-override journeys need a development role.
      SITE_ROLE: 'development',
    },
    reuseExistingServer: false,
    timeout: 60_000,
  },
});

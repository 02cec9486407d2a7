#!/usr/bin/env node
// The operators' deletion-request CLI (pnpm --filter api requests): src/cli/requests.ts, run from its bundle (plain
// JavaScript, built again when a source changed; see @gift/cli-runner).
import { runCli } from '@gift/cli-runner';

await runCli(new URL('../src/cli/requests.ts', import.meta.url));

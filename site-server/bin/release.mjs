#!/usr/bin/env node
// The release tool (pnpm release, promote, rollout, rollback, releases, preview-link): src/releases/cli.ts, run from
// its bundle (plain JavaScript, built again when a source changed; see @gift/cli-runner).
import { runCli } from '@gift/cli-runner';

await runCli(new URL('../src/releases/cli.ts', import.meta.url));

#!/usr/bin/env node
// The teams' field-data CLI (pnpm --filter api rum): src/field-data/cli.ts, run from its bundle (plain JavaScript,
// built again when a source changed; see @gift/cli-runner).
import { runCli } from '@gift/cli-runner';

await runCli(new URL('../src/field-data/cli.ts', import.meta.url));

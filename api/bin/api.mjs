#!/usr/bin/env node
// The API service as production starts it: `node api/bin/api.mjs` (docs/operations.md, "Running in production"),
// from the bundle `pnpm build` made of src/main.ts (see @gift/cli-runner: no TypeScript is compiled at start).
import { runCli } from '@gift/cli-runner';

process.env.NODE_ENV ||= 'production';
await runCli(new URL('../src/main.ts', import.meta.url));

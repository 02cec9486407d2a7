#!/usr/bin/env node
// The site server as production starts it: `node site-server/bin/site-server.mjs` (docs/operations.md, "Running in
// production"). It runs plain JavaScript, the bundle `pnpm build` made of src/start-server.ts (see @gift/cli-runner:
// no TypeScript is compiled at start; a source changed since is bundled again first, in about a second). It builds
// no page and needs no pnpm, and it runs React's production build unless NODE_ENV says otherwise. `--local`
// (`pnpm start`) stands in for the settings production must be given.
import { runCli } from '@gift/cli-runner';

process.env.NODE_ENV ||= 'production';
await runCli(new URL('../src/start-server.ts', import.meta.url));

#!/usr/bin/env node
// The site server as production starts it: `node site-server/bin/site-server.mjs` (docs/operations.md,
// "Running in production"). It builds nothing and needs no pnpm, and it runs React's production build unless
// NODE_ENV says otherwise. `--local` (`pnpm start`) stands in for the settings production must be given.
process.env.NODE_ENV ||= 'production';
await import('tsx');
if (process.argv.includes('--local')) await import('../src/dev/local-settings.ts');
await import('../src/main.ts');

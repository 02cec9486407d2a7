#!/usr/bin/env node
// `pnpm dev`: every app's dev server, the API and the mail catcher, their addresses printed last (src/dev/dev-all.ts).
await import('tsx');
await import('../src/dev/dev-all.ts');

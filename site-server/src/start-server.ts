/**
 * The site server's entry as `bin/site-server.mjs` runs it, from its bundle (`pnpm build` makes it): `--local`
 * (`pnpm start`) first stands in for the settings production must be given.
 */
if (process.argv.includes('--local')) await import('./dev/local-settings.ts');
await import('./main.ts');
export {};

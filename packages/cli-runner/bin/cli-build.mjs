#!/usr/bin/env node
// @ts-check
// `cli-build <entry.ts> ...` (a package's `build`): bundles each command's entry now, so that its first run starts at
// once. See ../src/cli-runner.mjs.
import { resolve } from 'node:path';
import { buildCli } from '../src/cli-runner.mjs';

for (const entry of process.argv.slice(2)) {
  const started = Date.now();
  const main = await buildCli(resolve(entry));
  console.log(`${entry}: bundled in ${Date.now() - started} ms (${main})`);
}

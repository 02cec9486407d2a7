#!/usr/bin/env node
// `pnpm rehearse-rollout <remote>`: visitors from many networks for a local rollout, so that its watch decides by
// itself (src/dev/rehearse-rollout.ts), run from its bundle as the release tool is (see @gift/cli-runner).
import { runCli } from '@gift/cli-runner';

await runCli(new URL('../src/dev/rehearse-rollout.ts', import.meta.url));

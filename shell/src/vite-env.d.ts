/// <reference types="vite/client" />

/** The remotes' dev servers' origins, in `pnpm dev` only (shell/vite.config.mts). */
declare const __DEV_REMOTE_ORIGINS__: string[];

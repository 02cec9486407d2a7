/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Comma-separated origins remotes may be loaded from besides the site's own (a CDN). */
  readonly VITE_REMOTE_ORIGINS?: string;
}

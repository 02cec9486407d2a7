/** Bytes from a whole number of megabytes above 0, or the default's; anything else stops with a clear message. */
export function megabytes(env: NodeJS.ProcessEnv, name: string, fallback: number) {
  const value = env[name];
  if (value !== undefined && value !== '' && !/^[1-9]\d*$/.test(value))
    throw new Error(`${name} must be a whole number of megabytes above 0, not "${value}".`);
  return (value ? Number(value) : fallback) * 1024 * 1024;
}

/**
 * What one build may weigh: a file, and all of it. The site servers refuse to fetch more from the CDN, so publishing
 * refuses it too, before copying anything (REMOTES_FETCH_MAX_FILE_MB, REMOTES_FETCH_MAX_VERSION_MB: one setting each
 * for both).
 */
export interface BuildLimits {
  maxFileBytes: number;
  maxVersionBytes: number;
}

export const buildLimits = (env: NodeJS.ProcessEnv): BuildLimits => ({
  maxFileBytes: megabytes(env, 'REMOTES_FETCH_MAX_FILE_MB', 16),
  maxVersionBytes: megabytes(env, 'REMOTES_FETCH_MAX_VERSION_MB', 64),
});

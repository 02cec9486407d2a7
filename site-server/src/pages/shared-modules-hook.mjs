// A module resolution hook for server renders: a remote's server build, wherever it is deployed (REMOTES_DIR, a copy
// of the workspace), imports React, the router and the store by name, and must get the very copies the shell renders
// with, whatever NODE_PATH says. Its `require`s (bundled CommonJS dependencies) are resolved in shared-modules.ts.
let sharedPackages = new Set();

export function initialize(data) {
  sharedPackages = new Set(data?.packages ?? []);
}

const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isBare = (specifier) => !/^(\.|\/|node:|file:|data:)/.test(specifier);

export async function resolve(specifier, context, nextResolve) {
  if (isBare(specifier) && sharedPackages.has(packageOf(specifier))) {
    return nextResolve(specifier, { ...context, parentURL: import.meta.url });
  }
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!isBare(specifier) || error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return nextResolve(specifier, { ...context, parentURL: import.meta.url });
  }
}

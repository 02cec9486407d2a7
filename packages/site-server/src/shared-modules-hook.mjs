// A module resolution hook for prerendering: a remote's server build deployed outside this workspace
// (REMOTES_DIR) imports React and the router by name, and must get the very copies the shell renders with.
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const bare = !/^(\.|\/|node:|file:|data:)/.test(specifier);
    if (!bare || error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return nextResolve(specifier, { ...context, parentURL: import.meta.url });
  }
}

import { useSyncExternalStore } from 'react';

const never = () => () => {};

/**
 * False in the prerendered HTML and while it hydrates, true once the page's scripts run: a form must not
 * submit natively (putting its fields in the address) before its handler exists.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}

import type { GoalName } from '@gift/contracts/field-data';
import { paths } from './paths.ts';

/**
 * What each page is for: the goals a view of it may reach, which an experiment on its remote counts as conversions.
 * Beside the route table rather than in it: the API checks a goal's beacon against it, and the shell, which carries
 * the route table to every visitor, never needs it (the page's own elements name their goal with `data-goal`).
 */
export const routeGoals: Partial<Record<string, readonly GoalName[]>> = {
  [paths.home]: ['store-click'],
  [paths.vendor]: ['portal-click'],
  [paths.business]: ['store-click'],
  [paths.deleteAccount]: ['deletion-request'],
};

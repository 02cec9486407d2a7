import { createContext, use, type Context } from 'react';

/**
 * The router's parts that remote pages use. Sharing this module instead of `react-router` lets the shell ship
 * its router tree-shaken to what it uses, while remotes still reach the shell's one router through it.
 */
export { Link, useLocation, useParams } from 'react-router';

const actionDataKey = Symbol.for('gift.router.action-data');
const registry = globalThis as { [actionDataKey]?: Context<unknown> };

/**
 * The outcome of a form the visitor posted natively, as the server rendered the page the post redirected to. The
 * shell provides it to the page the visitor landed on, and to no page after a navigation. One context per process:
 * the browser shares this module as a singleton, but each server build bundles its own copy of it.
 */
export const ActionDataContext = (registry[actionDataKey] ??= createContext<unknown>(undefined));

/** Like React Router's `useActionData`: what the last native post of this page came back with, if any. */
export const useActionData = <T>(): T | undefined => use(ActionDataContext) as T | undefined;

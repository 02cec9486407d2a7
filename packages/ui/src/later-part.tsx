import { createContext, memo, Suspense, use, useEffect, useRef, useSyncExternalStore, type ComponentType } from 'react';

/** Marks a part's element. */
export const laterPartAttribute = 'data-later-part';

/**
 * On a part's element: `waiting` while a part with a control in the first viewport has not hydrated (the page is
 * not interactive yet), `hydrated` once its code runs; none before then otherwise.
 */
export const laterPartStateAttribute = 'data-later-part-state';

/** Props held outside the part's boundary: a change before the part hydrates must not reach it (see below). */
interface PropsStore<P> {
  props: P;
  /** The props the server rendered with, which the part hydrates with. */
  readonly first: P;
  listeners: Set<() => void>;
}

const PartContext = createContext<{ store: PropsStore<unknown>; hydrated: () => void } | null>(null);

const isServer = typeof document === 'undefined';

/** For `useSyncExternalStore`: true while React hydrates, false in a render in the browser. */
const noChange = () => () => {};
const isHydrating = () => true;
const isNotHydrating = () => false;

/** Whether the page has hydrated already: the shell sets `data-ready` then (see root-layout in the shell). */
const pageHydrated = () => !isServer && document.documentElement.dataset.ready === 'true';

/** What a visitor can use: a part with one of these in the first viewport makes the page wait for it. */
const controlSelector = 'a[href], button, input, select, textarea, summary, label';

/** Whether an element shows in the viewport now. */
function inViewport(element: Element): boolean {
  const box = element.getBoundingClientRect();
  return box.bottom > 0 && box.top < window.innerHeight && box.right > 0 && box.left < window.innerWidth;
}

/**
 * A part of a page whose code is loaded and hydrated after the rest of the page: the server renders it with the
 * page, the browser shows and uses that HTML as it is (links, disclosures and forms work natively) and hydrates it
 * once its code is there, keeping what the visitor did meanwhile. Its code is asked for as soon as the page has
 * hydrated when the part shows in the first viewport (and if a control of it shows there, such as a link, the page
 * counts as interactive only once the part is), otherwise when it comes into view or the visitor moves (scrolls the
 * page, touches it, presses a key), whichever is first: a visitor who stays in the first viewport never loads it,
 * and one who scrolls towards it asks for it with the first scroll (until it hydrates it works as HTML).
 * So the first viewport's controls are attached to React sooner, with fewer bytes and less work before them.
 * Rendered after hydration (a page visited in the browser), it loads at once.
 *
 * Put a part's code in a module of its own and pass its dynamic import: `laterPart(() => import('./rest.tsx'))`.
 *
 * Why its props go through a store: React hydrates a part whose code has not arrived later, but an update that
 * reaches it before then (new props, a changed context) makes React throw the server's HTML away and render the
 * part's fallback (nothing) instead, which would blank it. So the part's boundary never re-renders: its props are
 * kept in a store it reads from once hydrated (with the props the server rendered first, so that hydration matches).
 * A part must not read a context that changes before it hydrates for the same reason.
 */
export function laterPart<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
): ComponentType<P & { className?: string }> {
  let release!: () => void;
  const asked = new Promise<void>((resolve) => (release = resolve));
  // On the server and in a page that has hydrated already, at once: the server waits for it (see prerender in the
  // shell) and a visitor who navigated here sees the whole page at once.
  if (isServer || pageHydrated()) release();
  const code = asked.then(load).then((module) => module.default);

  function Loaded() {
    const part = use(PartContext)!;
    const Component = use(code) as ComponentType<P>;
    const { store } = part;
    const props = useSyncExternalStore(
      (listener) => {
        store.listeners.add(listener);
        return () => store.listeners.delete(listener);
      },
      () => store.props as P,
      () => store.first as P,
    );
    useEffect(() => part.hydrated(), [part]);
    return <Component {...props} />;
  }

  // Never re-rendered by its parent (no props), so no update reaches the boundary before it hydrates.
  const Boundary = memo(function LaterPartBoundary() {
    return (
      <Suspense fallback={null}>
        <Loaded />
      </Suspense>
    );
  });

  function LaterPart({ className, ...props }: P & { className?: string }) {
    const element = useRef<HTMLDivElement>(null);
    // Whether it first rendered over the server's HTML. Rendered in the browser instead (a page visited from another
    // one, a page without server HTML as in development) there is nothing to keep: its code is asked for at once and
    // it renders without a boundary of its own, so that the page shows when the part can (during a navigation the
    // previous page stays until then) rather than without it, the rest moving down when it arrives.
    const hydrating = useRef(useSyncExternalStore(noChange, isNotHydrating, isHydrating));
    if (!hydrating.current) release();
    const store = useRef<PropsStore<unknown> | null>(null);
    store.current ??= { props, first: props, listeners: new Set() };
    const part = useRef<{ store: PropsStore<unknown>; hydrated: () => void } | null>(null);
    part.current ??= {
      store: store.current,
      hydrated: () => element.current?.setAttribute(laterPartStateAttribute, 'hydrated'),
    };

    useEffect(() => {
      const current = store.current!;
      if (current.props === props) return;
      current.props = props;
      current.listeners.forEach((listener) => listener());
    });

    useEffect(() => {
      const target = element.current;
      if (!target || target.getAttribute(laterPartStateAttribute) === 'hydrated') return;
      if (!hydrating.current) return;
      if (inViewport(target)) {
        // The page is interactive when the controls of its first viewport are: a part that shows one counts.
        if ([...target.querySelectorAll(controlSelector)].some(inViewport)) {
          target.setAttribute(laterPartStateAttribute, 'waiting');
        }
        return release();
      }
      // The visitor's own moves: a carousel moving by itself scrolls no page and presses no key.
      const moves = ['pointerdown', 'touchstart', 'keydown', 'wheel'] as const;
      const inView =
        'IntersectionObserver' in window
          ? new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && now())
          : undefined;
      const stop = () => {
        moves.forEach((type) => window.removeEventListener(type, now, true));
        window.removeEventListener('scroll', now);
        inView?.disconnect();
      };
      function now() {
        stop();
        release();
      }
      moves.forEach((type) => window.addEventListener(type, now, { capture: true, passive: true }));
      window.addEventListener('scroll', now, { passive: true });
      inView?.observe(target);
      return stop;
    }, []);

    return (
      <div ref={element} className={className} {...{ [laterPartAttribute]: '' }}>
        <PartContext value={part.current}>{hydrating.current ? <Boundary /> : <Loaded />}</PartContext>
      </div>
    );
  }
  return LaterPart as ComponentType<P & { className?: string }>;
}

/**
 * Calls `ready` once every later part in the first viewport has hydrated (at once when there is none): the page is
 * interactive then. For the shell's `hydrated` mark.
 */
export function whenFirstViewportHydrated(ready: () => void): () => void {
  const waiting = () => document.querySelector(`[${laterPartStateAttribute}="waiting"]`);
  if (!waiting()) {
    ready();
    return () => {};
  }
  const observer = new MutationObserver(() => {
    if (waiting()) return;
    observer.disconnect();
    ready();
  });
  observer.observe(document.body, { attributes: true, attributeFilter: [laterPartStateAttribute], subtree: true });
  return () => observer.disconnect();
}
